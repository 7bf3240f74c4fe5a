import FoundationEssentials
import IngestCore

/// Apple Health's "Export All Health Data": `export.xml`, or the zip it comes in, streamed.
/// Records become samples (``AppleHealthRecord``), each Workout a workout with its energy and
/// distance (from its attributes, or from its WorkoutStatistics children on iOS 16 and later),
/// each ActivitySummary a daily active-energy figure.
enum AppleHealthExport: HealthReader {
    static let format = "apple-xml"

    static func detect(name: String, head: [UInt8]) -> Bool {
        if head.starts(with: zipMagic) { return name.lowercased().hasSuffix(".zip") }
        let text = String(decoding: head, as: UTF8.self)
        return text.contains("<HealthData") || text.contains("<!DOCTYPE HealthData")
    }

    static let zipMagic: [UInt8] = [0x50, 0x4B, 0x03, 0x04]

    static func read(_ input: HealthInput, _ settings: HealthSettings, into out: HealthCollector) throws(FileReadError) {
        let file = try input.stream()
        var stream: any ByteStream = file
        if (try? FileSystem.readBytes(input.path, limit: 4)) == zipMagic {
            stream = try ZipEntryStream(file) { $0 == "export.xml" || $0.hasSuffix("/export.xml") }
        }
        var workout: WorkoutTag?
        var records = AppleHealthRecord.Mapper()
        func finishWorkout() throws(FileReadError) {
            guard let w = workout else { return }
            workout = nil
            switch w.workout {
            case .success(let value): try out.add(value, line: w.line)
            case .failure(let reason): out.bad(line: w.line, reason.description)
            }
        }
        let scanner = StartTagScanner(stream: stream, names: ["Record", "Workout", "WorkoutStatistics", "ActivitySummary", "/HealthData"])
        var closed = false
        let lines: Int
        do throws(FileReadError) {
            lines = try scanner.scan { (tag) throws(FileReadError) in
                if tag.name == "/HealthData" { closed = true; return }
                if tag.name == "WorkoutStatistics" { workout?.statistics.append(tag.attributes); return }
                try finishWorkout()             // statistics follow their workout; any other tag ends it
                switch tag.name {
                case "Record":
                    switch records.sample(tag) {
                    case .sample(let sample): try out.add(sample, line: tag.line)
                    case .ignored: break
                    case .bad(let reason): out.bad(line: tag.line, reason)
                    }
                case "Workout": workout = WorkoutTag(attributes: tag.attributes, line: tag.line)
                default:
                    switch activitySummary(tag.attributes, settings.timeZone) {
                    case .success(let sample?): try out.add(sample, line: tag.line)
                    case .success(nil): break
                    case .failure(let reason): out.bad(line: tag.line, reason.description)
                    }
                }
            }
        } catch {
            try finishWorkout()
            throw error
        }
        try finishWorkout()
        // An export that stops before its root element's end was cut off (a copy or a download
        // that did not finish): what came before counts, and the user hears of it.
        if !closed { throw FileReadError("cut off at line \(lines): no </HealthData> at the end") }
    }

    /// A Workout start tag and the WorkoutStatistics that follow it.
    struct WorkoutTag {
        var attributes: [String: String]
        var line: Int
        var statistics: [[String: String]] = []

        var workout: Result<HealthWorkout, FileReadError> {
            let a = attributes
            guard let (start, offset) = a["startDate"].flatMap(AppleHealthRecord.parseDate),
                  let (end, _) = a["endDate"].flatMap(AppleHealthRecord.parseDate) else {
                return .failure(FileReadError("Workout with unreadable startDate or endDate"))
            }
            var energy = quantity(a["totalEnergyBurned"], a["totalEnergyBurnedUnit"]) { HealthUnits.kcal(per: $0) }
            var distance = quantity(a["totalDistance"], a["totalDistanceUnit"]) { HealthUnits.metres(per: $0) }
            for s in statistics {
                let type = s["type"] ?? ""
                if energy == nil, type == "HKQuantityTypeIdentifierActiveEnergyBurned" { energy = quantity(s["sum"], s["unit"]) { HealthUnits.kcal(per: $0) } }
                if distance == nil, type.hasPrefix("HKQuantityTypeIdentifierDistance") { distance = quantity(s["sum"], s["unit"]) { HealthUnits.metres(per: $0) } }
            }
            return .success(HealthWorkout(activity: HealthWorkout.activity(a["workoutActivityType"] ?? "other"), start: start, end: end,
                                          offset: offset, energyKcal: energy, distanceM: distance, source: a["sourceName"] ?? ""))
        }

        /// `value` in `unit`, times what one unit is in the unit wanted (`per`).
        private func quantity(_ value: String?, _ unit: String?, _ per: (String) -> Double?) -> Double? {
            guard let value, let number = Double(value), number.isFinite, let factor = per(unit ?? "") else { return nil }
            return number * factor
        }
    }

    /// `<ActivitySummary dateComponents="2024-06-01" activeEnergyBurned="512.3" activeEnergyBurnedUnit="kcal" …/>`:
    /// the day's active energy as the Activity rings showed it, with no time zone of its own.
    static func activitySummary(_ a: [String: String], _ zone: ZoneRules) -> Result<HealthSample?, FileReadError> {
        guard let date = a["dateComponents"], let day = DateLayout.iso.parse(date), !day.hasTime else {
            return .failure(FileReadError("ActivitySummary with unreadable dateComponents \(a["dateComponents"] ?? "(none)")"))
        }
        guard let text = a["activeEnergyBurned"] else { return .success(nil) }
        guard let value = Double(text), let factor = HealthUnits.kcal(per: a["activeEnergyBurnedUnit"] ?? "kcal") else {
            return .failure(FileReadError("ActivitySummary activeEnergyBurned \(text) is not a number in a known unit"))
        }
        let (start, end, offset) = day.dayBounds(in: zone)
        return .success(HealthSample(kind: .activeEnergy, start: start, end: end, offset: offset, value: value * factor,
                                     source: "Activity summary", daily: true))
    }
}

/// Unit conversions shared by the readers.
enum HealthUnits {
    /// kcal per unit of energy: kcal, Cal (the food calorie), kJ; nil for a unit that is not energy.
    static func kcal(per unit: String) -> Double? {
        switch unit.lowercased() {
        case "kcal", "cal", "": 1
        case "kj": 1 / 4.184
        default: nil
        }
    }

    /// Metres per unit of distance (km, m, mi, yd, ft); `bare` is what a number without a unit is.
    static func metres(per unit: String, bare: Double = 1) -> Double? {
        switch unit.lowercased() {
        case "": bare
        case "km": 1000
        case "m": 1
        case "mi": 1609.344
        case "yd": 0.9144
        case "ft": 0.3048
        default: nil
        }
    }
}
