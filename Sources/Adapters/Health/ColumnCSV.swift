import FoundationEssentials

/// Any other CSV, read through the columns the config names: `Column.steps=Steps`,
/// `DateColumn=Day`, `DateFormat=%d.%m.%Y`, `TimeZone=Europe/Berlin`. A date-only row is a day's
/// figure; a date-time row is a point in time. Never detected from content: chosen by
/// `Format=csv` or by the presence of `Column.*` keys.
enum ColumnCSV: HealthReader {
    static let appendable = true
    static let format = "csv"

    /// Config field → what the column holds.
    static let fields: [String: HealthColumn] = [
        "steps": .quantity(.steps, scale: 1),
        "active_energy": .quantity(.activeEnergy, scale: 1),
        "resting_heart_rate": .quantity(.restingHeartRate, scale: 1),
        "heart_rate": .heartRate(.avg),
        "heart_rate_min": .heartRate(.min),
        "heart_rate_max": .heartRate(.max),
        "hrv": .quantity(.hrv, scale: 1),
        "sleep": .sleep(.asleep, secondsPerUnit: 3600),
        "sleep_minutes": .sleep(.asleep, secondsPerUnit: 60),
    ]

    static func detect(name: String, head: [UInt8]) -> Bool { false }

    static func read(_ input: HealthInput, _ settings: HealthSettings, into out: HealthCollector) throws(FileReadError) {
        let layout = try DateLayout(settings.dateFormat)
        try HealthCSV.read(input, format: format, source: settings.defaultSource(for: input.path), zone: settings.timeZone, into: out) {
            (header) throws(FileReadError) in
            do throws(FileReadError) { return try plan(header, settings, layout) } catch { throw FileReadError("\(error)") }
        }
    }

    static func plan(_ header: [String], _ settings: HealthSettings, _ layout: DateLayout) throws(FileReadError) -> HealthCSVPlan {
        guard !settings.columns.isEmpty else { throw FileReadError("no Column.* keys say which columns to read") }
        let dateName = settings.dateColumn ?? header[0]
        guard let dateColumn = header.firstIndex(of: dateName) else { throw FileReadError("the date column \(dateName) is not in the header") }
        var plan = HealthCSVPlan(dateColumn: dateColumn, dateLayout: layout, columns: [])
        for (field, name) in settings.columns.sorted(by: { $0.key < $1.key }) {
            guard let meaning = fields[field] else {
                throw FileReadError("Column.\(field) is not one of \(fields.keys.sorted().joined(separator: ", "))")
            }
            guard let index = header.firstIndex(of: name) else { throw FileReadError("the column \(name) (Column.\(field)) is not in the header") }
            plan.columns.append((index, meaning))
        }
        return plan
    }
}
