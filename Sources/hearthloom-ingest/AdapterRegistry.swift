import Adapters
import IngestCore

/// The adapter types this build has: one line per adapter.
let registeredAdapters: [any DeviceAdapter.Type] = [
    PhotosAdapter.self,
    GPSDAdapter.self,
    GeoClueAdapter.self,
    ContactsAdapter.self,
    CalendarAdapter.self,
    MPRISAdapter.self,
    FocusAdapter.self,
    HealthAdapter.self,
    LocationHistoryAdapter.self,
    ListeningHistoryAdapter.self,
    ScansAdapter.self,
]
