import Adapters
import IngestCore

/// The adapter types this build has: one line per adapter.
let registeredAdapters: [any DeviceAdapter.Type] = [
    PhotosAdapter.self,
    GPSDAdapter.self,
    ContactsAdapter.self,
    CalendarAdapter.self,
    MPRISAdapter.self,
    HealthAdapter.self,
    ScansAdapter.self,
]
