@testable import Adapters

/// Google Fit's Takeout JSON (data sources with their points).
enum GoogleFitJSONHarness {
    static func run(_ bytes: [UInt8]) { HealthInputs.read(GoogleFitTakeoutJSON.self, bytes) }
}
