import FoundationEssentials

/// The Health Auto Export app's CSV: a `Date/Time` (or `Date`) column, then one column per
/// metric named like `Active Energy (kJ)`, `Heart Rate [Min] (count/min)` or
/// `Sleep Analysis [Asleep] (hr)`. Times carry no offset unless the app was told to add one, so
/// `TimeZone=` places them. Columns it does not know are noted once and left.
enum HealthAutoExportCSV: HealthReader {
    static let appendable = true
    static let format = "hae-csv"

    static func detect(name: String, head: [UInt8]) -> Bool {
        var rows = CSVRows(Array(head.prefix { $0 != UInt8(ascii: "\n") }))
        guard let header = (try? rows.next())??.fields.map(HealthCSV.trimmed) else { return false }
        return (try? plan(header))?.columns.isEmpty == false
    }

    static func read(_ input: HealthInput, _ settings: HealthSettings, into out: HealthCollector) throws(FileReadError) {
        // The app writes no source: one constant name, not the file's, so overlapping exports give one identity.
        try HealthCSV.read(input, format: format, source: HealthAutoExportJSON.defaultSource, zone: settings.timeZone, into: out) {
            (header) throws(FileReadError) in
            let plan = try plan(header)
            guard !plan.columns.isEmpty else { throw FileReadError("no column Health Auto Export writes") }
            return plan
        }
    }

    static func plan(_ header: [String]) throws(FileReadError) -> HealthCSVPlan {
        guard let first = header.first, first == "Date/Time" || first == "Date" else {
            throw FileReadError("the first column is \(header.first ?? "missing"), not Date/Time")
        }
        var plan = HealthCSVPlan(dateColumn: 0, dateLayout: .iso, columns: [])
        for (index, name) in header.enumerated().dropFirst() {
            if let meaning = meaning(of: name) { plan.columns.append((index, meaning)) } else { plan.ignored.append(name) }
        }
        return plan
    }

    /// `Name [Part] (unit)` → what the column holds, nil for a metric not rolled up.
    static func meaning(of header: String) -> HealthColumn? {
        var rest = Substring(header)
        var unit = "", part = ""
        if rest.hasSuffix(")"), let open = rest.lastIndex(of: "(") {
            unit = String(rest[rest.index(after: open)..<rest.index(before: rest.endIndex)])
            rest = rest[..<open]
        }
        rest = Substring(HealthCSV.trimmed(String(rest)))
        if rest.hasSuffix("]"), let open = rest.lastIndex(of: "[") {
            part = String(rest[rest.index(after: open)..<rest.index(before: rest.endIndex)]).lowercased()
            rest = Substring(HealthCSV.trimmed(String(rest[..<open])))
        }
        switch (rest.lowercased(), part) {
        case ("step count", ""): return .quantity(.steps, scale: 1)
        case ("active energy", ""): return HealthUnits.kcal(per: unit).map { .quantity(.activeEnergy, scale: $0) }
        case ("basal energy burned", ""), ("resting energy", ""): return HealthUnits.kcal(per: unit).map { .quantity(.basalEnergy, scale: $0) }
        case ("heart rate", ""), ("heart rate", "avg"): return .heartRate(.avg)
        case ("heart rate", "min"): return .heartRate(.min)
        case ("heart rate", "max"): return .heartRate(.max)
        case ("resting heart rate", ""): return .quantity(.restingHeartRate, scale: 1)
        case ("heart rate variability", ""): return .quantity(.hrv, scale: 1)
        case ("sleep analysis", "total"): return .sleepTotal
        case ("sleep analysis", _):
            guard let stage = HealthAutoExportJSON.sleepValues[part] else { return nil }
            return .sleep(stage, secondsPerUnit: unit.lowercased().hasPrefix("min") ? 60 : 3600)
        default: return nil
        }
    }
}
