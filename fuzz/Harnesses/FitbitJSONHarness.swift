@testable import Adapters

/// A Fitbit export's per-day JSON arrays (steps, calories, heart rate, sleep logs).
enum FitbitJSONHarness {
    static func run(_ bytes: [UInt8]) { HealthInputs.read(FitbitExportJSON.self, bytes) }
}
