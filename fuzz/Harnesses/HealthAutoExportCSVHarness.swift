@testable import Adapters

/// Health Auto Export's CSV: a date column and one column per metric and unit.
enum HealthAutoExportCSVHarness {
    static func run(_ bytes: [UInt8]) { HealthInputs.read(HealthAutoExportCSV.self, bytes) }
}
