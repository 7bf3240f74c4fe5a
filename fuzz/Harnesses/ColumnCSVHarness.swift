@testable import Adapters

/// A spreadsheet's CSV mapped by column, in both layouts of its unit tests: one row per day
/// with a `%d.%m.%Y` date, and one row per point with an ISO 8601 time.
enum ColumnCSVHarness {
    static let daily = HealthSettings(timeZone: HealthInputs.berlin, columns: ["steps": "Steps", "sleep": "Sleep (h)", "resting_heart_rate": "Resting HR"],
                                      dateColumn: "Day", dateFormat: "%d.%m.%Y")
    static let points = HealthSettings(timeZone: HealthInputs.berlin, columns: ["heart_rate": "heart_rate", "heart_rate_min": "hr_min", "heart_rate_max": "hr_max"],
                                       dateColumn: "timestamp", dateFormat: "")

    static func run(_ bytes: [UInt8]) {
        HealthInputs.read(ColumnCSV.self, bytes, daily)
        HealthInputs.read(ColumnCSV.self, bytes, points)
    }
}
