import FoundationEssentials
import IngestCore

/// Fitbit's account export (the "Global Export Data" folder of the Fitbit part of Google Takeout,
/// or the older fitbit.com export): one JSON array per metric and period, in files named
/// `steps-2024-06-01.json`, `calories-…`, `heart_rate-…`, `resting_heart_rate-…`, `sleep-…`.
///
/// No timestamp carries an offset, and they are not all in the same clock:
/// - `steps`, `calories`, `heart_rate`: `dateTime` (`06/01/24 08:00:00`, MM/dd/yy) is UTC, the
///   series Fitbit keeps around the clock; the offset is `settings.timeZone`'s at that instant.
/// - `resting_heart_rate`: `value.date` (`06/01/24`) is the local day the figure belongs to.
/// - `sleep`: `startTime`, `endTime` and every `levels` `dateTime` (`2024-05-31T23:10:00.000`) are
///   the tracker's local wall time: bedtimes stay at the same hour when the wearer changes zones
///   (andykong.org/blog/fitbitsleeptzcorrection), so they are placed with `HealthTime.instant`.
///
/// Each file is streamed, its array split by `JSONArrayElements`, so memory does not grow with
/// the file and a file cut off mid-way keeps every record before the cut.
enum FitbitExportJSON: HealthReader {
    static let format = "fitbit"
    /// The export names no device; one fixed name keeps a sample's identity the same across files.
    static let source = "Fitbit"

    enum Metric: String, CaseIterable {
        case steps, calories, heartRate = "heart_rate", restingHeartRate = "resting_heart_rate", sleep
    }

    /// `steps-2024-06-01.json` → `.steps`.
    static func metric(fromName name: String) -> Metric? {
        let lower = name.lowercased()
        guard lower.hasSuffix(".json") else { return nil }
        let stem = lower.dropLast(5)
        for metric in Metric.allCases where stem.hasPrefix(metric.rawValue + "-") {
            let date = Array(stem.dropFirst(metric.rawValue.count + 1).utf8)
            if date.count == 10, date[4] == 0x2D, date[7] == 0x2D, date.allSatisfy({ $0 == 0x2D || (0x30...0x39).contains($0) }) { return metric }
        }
        return nil
    }

    static func detect(name: String, head: [UInt8]) -> Bool {
        metric(fromName: name) != nil && head.first { ![0x20, 0x09, 0x0A, 0x0D].contains($0) } == 0x5B
    }

    static func read(_ input: HealthInput, _ settings: HealthSettings, into out: HealthCollector) throws(FileReadError) {
        let name = input.path.lastPathComponent
        var known = metric(fromName: name)
        if known == nil { known = sniff(try head(input)) }
        guard let metric = known else {
            throw FileReadError("not a Fitbit export file (steps-, calories-, heart_rate-, resting_heart_rate- or sleep-YYYY-MM-DD.json)")
        }
        let zone = settings.timeZone
        // Calories count from their day's lowest minute: a first pass finds it, the second (not
        // hashed again) hands the minutes on.
        var stream: any ByteStream = try input.stream()
        var floors: [String: Double] = [:]
        if metric == .calories {
            floors = try calorieFloors(stream, zone: zone)
            stream = try FileByteStream(path: input.path, offset: input.offset)
        }
        let end = try JSONArrayElements.scan(stream) { (record, line) throws(FileReadError) in
            guard let record else { out.bad(line: line, "not a JSON record"); return }
            switch metric {
            case .steps, .calories, .heartRate:
                guard let text = record["dateTime"]?.stringValue, let start = utcDateTime(text) else {
                    out.bad(line: line, "unreadable dateTime \(record["dateTime"]?.stringValue ?? "(none)")"); return
                }
                let field = metric == .heartRate ? record["value"]?["bpm"] : record["value"]
                guard let value = JSONArrayElements.number(field) else { out.bad(line: line, "value is not a number"); return }
                if metric == .calories { try activeEnergy(start: start, kcal: value, floors: floors, zone: zone, line: line, into: out); return }
                // A zero-step minute adds nothing to a day, and would only make the tracker hide
                // the phone's steps in minutes it was lying on a table.
                if metric == .steps, value == 0 { return }
                let end = metric == .steps ? start + 60 : start
                try out.add(HealthSample(kind: metric == .steps ? .steps : .heartRate, start: start, end: end,
                                         offset: zone.offset(at: start), value: value, source: source), line: line)
            case .restingHeartRate:
                guard let text = record["value"]?["date"]?.stringValue ?? record["dateTime"]?.stringValue,
                      let (y, m, d) = slashDate(text) else { out.bad(line: line, "unreadable date"); return }
                guard let value = JSONArrayElements.number(record["value"]?["value"]) else { out.bad(line: line, "value is not a number"); return }
                if value == 0 { return }                   // Fitbit writes 0 for a day without a resting rate
                let (start, offset) = HealthTime.instant(year: y, month: m, day: d, in: zone)
                let (next, _) = HealthTime.instant(year: y, month: m, day: d + 1, in: zone)
                try out.add(HealthSample(kind: .restingHeartRate, start: start, end: next, offset: offset, value: value,
                                         source: source, daily: true), line: line)
            case .sleep:
                try sleep(record, line: line, zone: zone, into: out)
            }
        }
        switch end {
        case .complete: break
        case .truncated(let line): out.note("\(name) is cut off at line \(line): the records before it were read")
        case .missing: throw FileReadError("not a Fitbit export file (no top-level JSON array)")
        }
    }

    private static func head(_ input: HealthInput) throws(FileReadError) -> [UInt8] {
        do { return try FileSystem.readBytes(input.path, from: input.offset, limit: 4096) } catch { throw FileReadError(error.message) }
    }

    /// A renamed file forced with `Format=fitbit`: sleep and heart-rate records can be told by their
    /// fields; steps and calories look alike, so those need their file name.
    static func sniff(_ bytes: [UInt8]) -> Metric? {
        let head = String(decoding: bytes.prefix(4096), as: UTF8.self)
        if head.contains("\"logId\"") { return .sleep }
        if head.contains("\"bpm\"") { return .heartRate }
        if head.contains("\"error\"") { return .restingHeartRate }
        return nil
    }

    // MARK: - Calories

    /// Fitbit's per-minute calories are total energy: the basal rate is in every minute, asleep
    /// too. The node's day has active energy only, so what counts is each minute's excess over
    /// the lowest minute of its local day, which is the basal rate Fitbit spreads evenly over
    /// resting minutes. A day the file holds only part of (a month file's first or last day in
    /// another zone) takes its floor from the minutes it has.
    static func calorieFloors(_ stream: any ByteStream, zone: ZoneRules) throws(FileReadError) -> [String: Double] {
        var floors: [String: Double] = [:]
        _ = try JSONArrayElements.scan(stream) { (record, _) throws(FileReadError) in
            guard let text = record?["dateTime"]?.stringValue, let start = utcDateTime(text),
                  let kcal = JSONArrayElements.number(record?["value"]), kcal.isFinite, kcal >= 0 else { return }
            let day = HealthTime.localDate(of: start, offset: zone.offset(at: start))
            floors[day] = min(floors[day] ?? .infinity, kcal)
        }
        return floors
    }

    /// One minute's calories above its day's floor, as active energy.
    static func activeEnergy(start: Double, kcal: Double, floors: [String: Double], zone: ZoneRules, line: Int,
                             into out: HealthCollector) throws(FileReadError) {
        guard kcal.isFinite, kcal >= 0 else { out.bad(line: line, "negative or invalid calories \(kcal)"); return }
        let offset = zone.offset(at: start)
        let active = kcal - (floors[HealthTime.localDate(of: start, offset: offset)] ?? kcal)
        guard active > 0 else { return }
        try out.add(HealthSample(kind: .activeEnergy, start: start, end: start + 60, offset: offset, value: active, source: source), line: line)
    }

    // MARK: - Sleep

    static let stages: [String: HealthSample.SleepStage] = [
        "deep": .deep, "light": .core, "rem": .rem, "wake": .awake,     // "stages" logs
        "asleep": .asleep, "restless": .awake, "awake": .awake,         // "classic" logs
    ]

    /// One sleep log: `levels.data` gives the stages back to back; in "stages" logs
    /// `levels.shortData` marks short wakes (up to 3 min) inside them, which Fitbit does not count
    /// as sleep, so they are cut out of the stages and kept as awake.
    static func sleep(_ log: JSONValue, line: Int, zone: ZoneRules, into out: HealthCollector) throws(FileReadError) {
        let id = log["logId"].map { String(decoding: $0.encoded, as: UTF8.self) } ?? "?"
        func entries(_ key: String) -> [(start: Double, end: Double, offset: Int, stage: HealthSample.SleepStage)] {
            var list: [(start: Double, end: Double, offset: Int, stage: HealthSample.SleepStage)] = []
            for (n, entry) in (log["levels"]?[key]?.arrayValue ?? []).enumerated() {
                guard let text = entry["dateTime"]?.stringValue, let (start, offset) = localDateTime(text, in: zone),
                      let level = entry["level"]?.stringValue, let stage = stages[level],
                      let seconds = JSONArrayElements.number(entry["seconds"]), seconds > 0, seconds <= 86_400 else {
                    out.bad(line: line, "sleep log \(id): \(key) entry \(n + 1) has an unreadable dateTime, level or seconds"); continue
                }
                list.append((start, start + seconds, offset, stage))
            }
            return list
        }
        guard log["levels"]?["data"]?.arrayValue != nil else { out.bad(line: line, "sleep log \(id) has no levels.data"); return }
        let data = entries("data"), short = entries("shortData")
        let wakes = short.map { ($0.start, $0.end) }.sorted { $0.0 < $1.0 }
        var pieces: [(start: Double, end: Double, offset: Int, stage: HealthSample.SleepStage)] = short.map { ($0.start, $0.end, $0.offset, .awake) }
        for entry in data {
            var from = entry.start
            for wake in wakes where wake.1 > from && wake.0 < entry.end {
                if wake.0 > from { pieces.append((from, wake.0, entry.offset, entry.stage)) }
                from = max(from, wake.1)
            }
            if from < entry.end { pieces.append((from, entry.end, entry.offset, entry.stage)) }
        }
        for p in pieces.sorted(by: { $0.start < $1.start }) {
            try out.add(HealthSample(kind: .sleep(p.stage), start: p.start, end: p.end, offset: p.offset,
                                     value: p.end - p.start, source: source), line: line)
        }
    }

    // MARK: - Dates

    /// `06/01/24 08:00:00` (UTC) → seconds since 1970.
    static func utcDateTime(_ text: String) -> Double? {
        let b = Array(text.utf8)
        guard b.count == 17, b[8] == 0x20, b[11] == 0x3A, b[14] == 0x3A, let (y, m, d) = slashDate(String(text.prefix(8))),
              let h = digits(b, 9, 2), let mi = digits(b, 12, 2), let s = digits(b, 15, 2), h < 24, mi < 60, s < 61 else { return nil }
        return Double(CivilCalendar.days(year: y, month: m, day: d) * 86_400 + h * 3600 + mi * 60 + s)
    }

    /// `06/01/24` (MM/dd/yy, 2000s) → (year, month, day).
    static func slashDate(_ text: String) -> (Int, Int, Int)? {
        let b = Array(text.utf8)
        guard b.count == 8, b[2] == 0x2F, b[5] == 0x2F, let m = digits(b, 0, 2), let d = digits(b, 3, 2), let y = digits(b, 6, 2),
              (1...12).contains(m), (1...CivilCalendar.daysIn(month: m, year: 2000 + y)).contains(d) else { return nil }
        return (2000 + y, m, d)
    }

    /// `2024-05-31T23:10:00.000` in `zone` → (instant, offset).
    static func localDateTime(_ text: String, in zone: ZoneRules) -> (Double, Int)? {
        let b = Array(text.utf8)
        guard b.count >= 19, b[4] == 0x2D, b[7] == 0x2D, b[10] == 0x54, b[13] == 0x3A, b[16] == 0x3A,
              let y = digits(b, 0, 4), let m = digits(b, 5, 2), let d = digits(b, 8, 2), let h = digits(b, 11, 2),
              let mi = digits(b, 14, 2), let s = digits(b, 17, 2), (1...12).contains(m),
              (1...CivilCalendar.daysIn(month: m, year: y)).contains(d), h < 24, mi < 60, s < 61 else { return nil }
        var fraction = 0.0
        if b.count > 19 {
            guard b[19] == 0x2E, b.count > 20, digits(b, 20, b.count - 20) != nil, let f = Double("0" + text.dropFirst(19)) else { return nil }
            fraction = f
        }
        return HealthTime.instant(year: y, month: m, day: d, hour: h, minute: mi, second: Double(s) + fraction, in: zone)
    }

    private static func digits(_ b: [UInt8], _ from: Int, _ count: Int) -> Int? {
        guard count > 0, count <= 9, from + count <= b.count else { return nil }
        var v = 0
        for c in b[from..<(from + count)] { guard (0x30...0x39).contains(c) else { return nil }; v = v * 10 + Int(c - 0x30) }
        return v
    }
}
