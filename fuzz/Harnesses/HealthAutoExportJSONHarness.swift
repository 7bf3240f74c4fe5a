@testable import Adapters

/// Health Auto Export's JSON (metrics, sleep, workouts).
enum HealthAutoExportJSONHarness {
    static func run(_ bytes: [UInt8]) { HealthInputs.read(HealthAutoExportJSON.self, bytes) }
}
