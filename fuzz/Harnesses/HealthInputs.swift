@testable import Adapters

/// What the health readers are given: the input as a file, the settings of their unit tests.
enum HealthInputs {
    static let berlin = ZoneRules(named: "Europe/Berlin") ?? .utc

    /// Runs `reader` on `bytes` as a whole file; a thrown error is a refused file, not a finding.
    static func read(_ reader: any HealthReader.Type, _ bytes: [UInt8], _ settings: HealthSettings = HealthSettings(timeZone: berlin)) {
        try? reader.read(HealthInput(path: ScratchFile.holding(bytes)), settings, into: HealthCollector())
    }
}
