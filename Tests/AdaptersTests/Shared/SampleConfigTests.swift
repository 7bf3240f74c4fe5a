import Foundation
import IngestCore
import Testing
@testable import Adapters

/// Every adapter's sample config: the copy in adapters.d/ is the embedded one (what `adapters`
/// prints), the adapter's README shows it as shipped, and it loads without an error.
struct SampleConfigTests {
    static let repo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().path
    static let adapters: [(type: any DeviceAdapter.Type, folder: String)] = [
        (PhotosAdapter.self, "Photos"), (ContactsAdapter.self, "Contacts"), (CalendarAdapter.self, "Calendar"),
        (GPSDAdapter.self, "GPSD"), (GeoClueAdapter.self, "GeoClue"), (MPRISAdapter.self, "MPRIS"),
        (FocusAdapter.self, "Focus"),
        (ScansAdapter.self, "Scans"), (ListeningHistoryAdapter.self, "ListeningHistory"),
    ]

    @Test(arguments: adapters.map(\.folder))
    func theShippedExampleIsTheEmbeddedSampleAndLoads(folder: String) throws {
        let type = try #require(Self.adapters.first { $0.folder == folder }?.type)
        let file = Self.repo + "/adapters.d/\(type.type).conf"
        #expect(try String(contentsOfFile: file, encoding: .utf8) == type.sampleConfig)
        let readme = try String(contentsOfFile: Self.repo + "/Sources/Adapters/\(folder)/README.md", encoding: .utf8)
        #expect(readme.contains(type.sampleConfig), "the adapter README must show \(type.type).conf as shipped")
        let config = try AdapterRegistry(Self.adapters.map(\.type)).loadConfig(file: file)
        #expect(config.type == type.type)
    }
}
