import Foundation
import IngestCore
import Testing
@testable import Adapters

/// Each adapter's keys against its sample config and its reader: the sample only shows keys the
/// adapter declares, with values their kinds parse, and a config that gives none reads as the defaults.
struct AdapterConfigKeysTests {
    static let types: [any DeviceAdapter.Type] = [
        PhotosAdapter.self, ContactsAdapter.self, CalendarAdapter.self, GPSDAdapter.self, GeoClueAdapter.self, MPRISAdapter.self, HealthAdapter.self,
        ScansAdapter.self,
    ]

    @Test(arguments: types.map { $0.type })
    func everyKeyInTheSampleConfigIsDeclaredAndItsValueParses(type name: String) throws {
        let type = try #require(Self.types.first { $0.type == name })
        let keys = AdapterConfig.commonKeys + type.configKeys
        for line in type.sampleConfig.split(separator: "\n") where !line.hasPrefix("##") {
            // `Key=value` or the commented `# Key=value`; prose lines have no `=` right after a word.
            let text = line.hasPrefix("# ") ? line.dropFirst(2) : line[...]
            guard let eq = text.firstIndex(of: "="), text[..<eq].allSatisfy({ $0.isLetter || $0.isNumber || $0 == "." }) else { continue }
            let key = keys.first { $0.name == text[..<eq] }
            #expect(key != nil, "\(name).conf shows \(text[..<eq]), which \(name) does not declare")
            #expect(key?.refusal(of: String(text[text.index(after: eq)...]), file: "/x.conf") == nil, "\(name).conf: \(line)")
        }
    }

    func config(_ text: String) throws -> AdapterConfig {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("keys-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("a.conf").path
        try ("[Adapter]\n" + text).write(toFile: file, atomically: true, encoding: .utf8)
        return try AdapterRegistry(Self.types).loadConfig(file: file)
    }

    @Test func unsetKeysReadAsTheDefaultsAdaptersPrints() throws {
        let calendar = try CalendarAdapter(config: config("Type=calendar\nPath=/c\n"))
        #expect(calendar.lookAhead == 90 * 86_400 && calendar.maxOccurrences == 5000)
        let gpsd = try GPSDAdapter(config: config("Type=gpsd\n"))
        #expect(gpsd.host == "localhost" && gpsd.port == 2947 && gpsd.silence == 30)
        #expect(gpsd.settings.maxError == 100 && gpsd.settings.maxSpeed == 300 && gpsd.settings.detector.radius == 100)
        #expect(gpsd.settings.detector.minStay == 300 && gpsd.settings.detector.maxGap == 900 && gpsd.settings.keepFixes == 30 * 86_400)
        let mpris = try MPRISAdapter(config: config("Type=mpris\n"))
        #expect(mpris.rules.minPlayedFraction == 0.5 && mpris.rules.minPlayedTime == 240 && mpris.rules.minTrackLength == 30)
        #expect(mpris.filter == PlayerFilter(denyBusNames: ["*.playerctld", "*.kdeconnect.*"]))
        let enabled = try config("Type=photos\nPath=/p\n")
        #expect(enabled.enabled)
    }

    @Test func rangeChecksNameTheKeyAndItsLine() throws {
        let gpsd = try config("Type=gpsd\nPort=70000\n")
        #expect(throws: ConfigError(file: gpsd.file, line: 3, key: "Port", "must be 1 to 65535")) { try GPSDAdapter(config: gpsd) }
        let radius = try config("Type=gpsd\nRadius=0\n")
        #expect(throws: ConfigError(file: radius.file, line: 3, key: "Radius", "must be more than 0")) { try GPSDAdapter(config: radius) }
        let mpris = try config("Type=mpris\nMinPlayedPercent=0\n")
        #expect(throws: ConfigError(file: mpris.file, line: 3, key: "MinPlayedPercent", "expected 1 to 100, found 0")) {
            try MPRISAdapter(config: mpris)
        }
        let calendar = try config("Type=calendar\nPath=/c\nMaxOccurrences=0\n")
        #expect(throws: ConfigError(file: calendar.file, line: 4, key: "MaxOccurrences", "must be at least 1")) {
            try CalendarAdapter(config: calendar)
        }
        let languages = try config("Type=scans\nPath=/s\nLanguages=eng+xx1\n")
        #expect(throws: ConfigError(file: languages.file, line: 4, key: "Languages",
                                    "xx1.traineddata not installed in \(TesseractLanguages.folder); install tesseract-ocr-xx1")) {
            try ScansAdapter(config: languages)
        }
        let jobs = try config("Type=scans\nPath=/s\nJobs=-1\n")
        #expect(throws: ConfigError(file: jobs.file, line: 4, key: "Jobs", "must be 0 (one per core) to 256")) { try ScansAdapter(config: jobs) }
        #expect(try ScansAdapter(config: try config("Type=scans\nPath=/s\nJobs=1\n")).engines == 1)
        let pathless = try config("Type=calendar\nMaxOccurrences=0\n")
        #expect(throws: ConfigError(file: pathless.file, key: "Path", "missing; name at least one .ics file or folder")) {
            try CalendarAdapter(config: pathless)
        }
    }
}
