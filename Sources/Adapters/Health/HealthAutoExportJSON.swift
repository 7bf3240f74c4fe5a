#if canImport(Glibc)
import Glibc
#endif

/// The Health Auto Export iOS app's JSON: `{"data": {"metrics": [{"name", "units", "data": [points]}],
/// "workouts": [...]}}`.
///
/// Quirks it covers: dates as `yyyy-MM-dd HH:mm:ss Z`; numbers written as JSON numbers or as
/// strings; a metric's `data` before its `name` and `units` (the app does not keep key order);
/// energy in kcal or kJ; heart rate as `Min`/`Avg`/`Max`; sleep aggregated per night (hours per
/// stage) or not (one stage per point); `source` joined with `|` when the app aggregated
/// several devices, kept as written so the same export always gives the same identity (a
/// priority glob such as `*Watch*` still matches it); workouts with energy as a quantity object,
/// a plain number or a per-minute series.
///
/// The file is streamed through ``JSONScanner`` in blocks, in bounded memory whatever its size:
/// nothing is built for metrics that are not read, and no `String` is made for numbers or dates.
/// A metric whose `data` comes before its `name` is skipped, then read again from where its
/// `data` began by a second scanner on the same file.
enum HealthAutoExportJSON: HealthReader {
    static let format = "hae-json"
    /// Points without a `source` (older app versions): one constant name, not the file's, so
    /// two overlapping exports give one identity.
    static let defaultSource = "Health Auto Export"

    enum Metric: Equatable { case quantity(HealthSample.Kind), heartRate, sleep }

    static let metrics: [String: Metric] = [
        "step_count": .quantity(.steps),
        "active_energy": .quantity(.activeEnergy),
        "basal_energy_burned": .quantity(.basalEnergy),
        "resting_energy": .quantity(.basalEnergy),
        "heart_rate": .heartRate,
        "resting_heart_rate": .quantity(.restingHeartRate),
        "heart_rate_variability": .quantity(.hrv),
        "heart_rate_variability_sdnn": .quantity(.hrv),
        "sleep_analysis": .sleep,
    ]

    static let sleepValues: [String: HealthSample.SleepStage] = [
        "core": .core, "deep": .deep, "rem": .rem, "awake": .awake, "in bed": .inBed, "inbed": .inBed,
        "asleep": .asleep, "unspecified": .asleep, "asleep (unspecified)": .asleep,
    ]

    static func detect(name: String, head: [UInt8]) -> Bool {
        guard head.first(where: { $0 > 0x20 }) == UInt8(ascii: "{") else { return false }
        let text = String(decoding: head, as: UTF8.self)
        return text.contains("\"data\"") && (text.contains("\"metrics\"") || text.contains("\"workouts\""))
    }

    static func read(_ input: HealthInput, _ settings: HealthSettings, into out: HealthCollector) throws(FileReadError) {
        // JSON cannot be read from where a file grew: a longer export is read again from its start.
        let path = input.path
        try read(input.stream(), reopen: { offset throws(FileReadError) in try FileByteStream(path: path, offset: offset) }, into: out)
    }

    /// Reads an export from `stream`; `reopen` gives the same bytes again from an offset (a
    /// second look, not hashed again).
    static func read(_ stream: any ByteStream, reopen: @escaping (Int64) throws(FileReadError) -> any ByteStream,
                     into out: HealthCollector) throws(FileReadError) {
        do {
            var parser = Parser(s: try JSONScanner(stream: stream), out: out, reopen: reopen)
            try parser.document()
            try stream.drain()
            if !parser.sawData { throw FileReadError("no data.metrics or data.workouts") }
        } catch let error as FileReadError {
            throw error
        } catch {
            throw FileReadError("\(error)")
        }
    }

    // MARK: - Parser

    private struct Parser: ~Copyable {
        var s: JSONScanner
        let out: HealthCollector
        /// A stream of the same file from an offset, to read a metric's `data` once its name is known.
        let reopen: (Int64) throws(FileReadError) -> any ByteStream
        var sawData = false
        /// Sources repeat point after point (a few take turns): the last four's bytes and text, so
        /// most points make no `String`, and a day's points of one source share one.
        var recentSources: [(bytes: [UInt8], text: String)] = []

        init(s: consuming JSONScanner, out: HealthCollector, reopen: @escaping (Int64) throws(FileReadError) -> any ByteStream) {
            self.s = s; self.out = out; self.reopen = reopen
        }

        mutating func document() throws {
            guard try s.peek() == .object else { throw JSONScanner.Failure.syntax(line: s.line, "not a JSON object") }
            try s.enterObject()
            while let k = try s.nextKey() {
                if s.key(k, is: "data"), try s.peek() == .object {
                    try s.enterObject()
                    while let k = try s.nextKey() { try section(k) }
                } else {
                    try section(k)                  // the REST variant without the `data` wrapper
                }
            }
        }

        private mutating func section(_ key: Range<Int>) throws {
            let isMetrics = s.key(key, is: "metrics")
            guard isMetrics || s.key(key, is: "workouts"), try s.peek() == .array else { try s.skipValue(); return }
            sawData = true
            try s.enterArray()
            while try s.nextElement() { if isMetrics { try metric() } else { try workout() } }
        }

        private mutating func metric() throws {
            let line = s.line
            guard try s.peek() == .object else { out.bad(line: line, "a metric that is not an object"); try s.skipValue(); return }
            try s.enterObject()
            var name: String?, units: String?
            var deferred: (offset: Int64, line: Int)?
            while let k = try s.nextKey() {
                if s.key(k, is: "name") { name = try s.string() }
                else if s.key(k, is: "units") { units = try s.string() }
                else if s.key(k, is: "data") {
                    if let name, let units { try points(name, units) } else { deferred = (s.offset, s.line); try s.skipValue() }
                } else { try s.skipValue() }
            }
            guard let deferred else { return }
            guard let name else { out.bad(line: line, "a metric without a name"); return }
            // `data` came before `name` or `units`: go back for it now both are known.
            let again = try JSONScanner(stream: reopen(deferred.offset), line: deferred.line, atFileStart: false)
            var second = Parser(s: again, out: out, reopen: reopen)
            try second.points(name, units ?? "")
        }

        private mutating func points(_ name: String, _ units: String) throws {
            guard let metric = HealthAutoExportJSON.metrics[name] else {
                out.note("hae-json: metric \(name) is not read"); try s.skipValue(); return
            }
            var scale = 1.0
            switch metric {
            case .quantity(.activeEnergy), .quantity(.basalEnergy):
                guard let k = HealthUnits.kcal(per: units) else {
                    out.note("hae-json: \(name) in unknown units \(units) is not read"); try s.skipValue(); return
                }
                scale = k
            case .sleep: scale = units.lowercased().hasPrefix("min") ? 60 : 3600
            default: break
            }
            guard try s.peek() == .array else { out.bad(line: s.line, "\(name) data is not an array"); try s.skipValue(); return }
            try s.enterArray()
            while try s.nextElement() {
                if metric == .sleep { try sleepPoint(secondsPerUnit: scale) } else { try point(metric, scale: scale) }
            }
        }

        /// `{"date", "qty", "source"}`, or heart rate's `{"date", "Min", "Avg", "Max", "source"}`.
        private mutating func point(_ metric: Metric, scale: Double) throws {
            let line = s.line
            guard try s.peek() == .object else { out.bad(line: line, "a data point that is not an object"); try s.skipValue(); return }
            try s.enterObject()
            var date: (Double, Int)?, qty: Double?, low: Double?, avg: Double?, high: Double?
            var source = HealthAutoExportJSON.defaultSource
            var bad: String?
            while let k = try s.nextKey() {
                if s.key(k, is: "date") { date = try self.date("date", &bad) }
                else if s.key(k, is: "qty") { qty = try number("qty", &bad) }
                else if s.key(k, is: "Avg") { avg = try number("Avg", &bad) }
                else if s.key(k, is: "Min") { low = try number("Min", &bad) }
                else if s.key(k, is: "Max") { high = try number("Max", &bad) }
                else if s.key(k, is: "source") { source = try self.source() ?? source }
                else { try s.skipValue() }
            }
            if let bad { out.bad(line: line, bad); return }
            guard let (start, offset) = date else { out.bad(line: line, "a data point without a date"); return }
            let kind: HealthSample.Kind
            if case .quantity(let k) = metric { kind = k } else { kind = .heartRate }
            guard let value = kind == .heartRate ? (avg ?? qty) : qty else {
                out.bad(line: line, kind == .heartRate ? "a heart rate without Avg or qty" : "a data point without qty"); return
            }
            var sample = HealthSample(kind: kind, start: start, end: start, offset: offset, value: value * scale, source: source)
            if kind == .heartRate { sample.low = low; sample.high = high }
            try out.add(sample, line: line)
        }

        /// A night (`sleepStart`, `sleepEnd`, hours per stage) or one stage (`startDate`, `endDate`, `value`).
        private mutating func sleepPoint(secondsPerUnit: Double) throws {
            let line = s.line
            guard try s.peek() == .object else { out.bad(line: line, "a data point that is not an object"); try s.skipValue(); return }
            try s.enterObject()
            var bad: String?
            var startDate: (Double, Int)?, endDate: (Double, Int)?, sleepStart: (Double, Int)?, inBedStart: (Double, Int)?
            var stage: String?
            var seconds: [HealthSample.SleepStage: Double] = [:]
            var totalGiven = false
            var source: String?, sleepSource: String?
            while let k = try s.nextKey() {
                if s.key(k, is: "startDate") { startDate = try date("startDate", &bad) }
                else if s.key(k, is: "endDate") { endDate = try date("endDate", &bad) }
                else if s.key(k, is: "sleepStart") { sleepStart = try date("sleepStart", &bad) }
                else if s.key(k, is: "inBedStart") { inBedStart = try date("inBedStart", &bad) }
                else if s.key(k, is: "value") { stage = try s.string() }
                else if s.key(k, is: "asleep") { seconds[.asleep] = try number("asleep", &bad).map { $0 * secondsPerUnit } }
                else if s.key(k, is: "core") { seconds[.core] = try number("core", &bad).map { $0 * secondsPerUnit } }
                else if s.key(k, is: "deep") { seconds[.deep] = try number("deep", &bad).map { $0 * secondsPerUnit } }
                else if s.key(k, is: "rem") { seconds[.rem] = try number("rem", &bad).map { $0 * secondsPerUnit } }
                else if s.key(k, is: "awake") { seconds[.awake] = try number("awake", &bad).map { $0 * secondsPerUnit } }
                else if s.key(k, is: "inBed") { seconds[.inBed] = try number("inBed", &bad).map { $0 * secondsPerUnit } }
                else if s.key(k, is: "totalSleep") { totalGiven = true; try s.skipValue() }
                else if s.key(k, is: "source") { source = try self.source() }
                else if s.key(k, is: "sleepSource") { sleepSource = try self.source() }
                else { try s.skipValue() }
            }
            if let bad { out.bad(line: line, bad); return }
            let from = source ?? sleepSource ?? HealthAutoExportJSON.defaultSource
            if let stage {
                guard let kind = HealthAutoExportJSON.sleepValues[stage.lowercased()] else { out.bad(line: line, "unknown sleep value \(stage)"); return }
                guard let (start, offset) = startDate, let (end, _) = endDate else { out.bad(line: line, "a sleep stage without startDate or endDate"); return }
                try out.add(HealthSample(kind: .sleep(kind), start: start, end: end, offset: offset, value: end - start, source: from), line: line)
                return
            }
            guard let (start, offset) = sleepStart ?? inBedStart else { out.bad(line: line, "a night without sleepStart or inBedStart"); return }
            for sample in HealthSample.aggregatedSleep(seconds, totalGiven: totalGiven, start: start, inBedStart: inBedStart?.0,
                                                       offset: offset, source: from) {
                try out.add(sample, line: line)
            }
        }

        private mutating func workout() throws {
            let line = s.line
            guard try s.peek() == .object else { out.bad(line: line, "a workout that is not an object"); try s.skipValue(); return }
            try s.enterObject()
            var bad: String?
            var name: String?, start: (Double, Int)?, end: (Double, Int)?
            var energy: Double?, energySeries: Double?, distance: Double?
            var source = HealthAutoExportJSON.defaultSource
            while let k = try s.nextKey() {
                if s.key(k, is: "name") { name = try s.string() }
                else if s.key(k, is: "start") { start = try date("start", &bad) }
                else if s.key(k, is: "end") { end = try date("end", &bad) }
                else if s.key(k, is: "activeEnergyBurned") { energy = try measure("activeEnergyBurned", { HealthUnits.kcal(per: $0) }, &bad) }
                else if s.key(k, is: "activeEnergy") {
                    // Version 2 writes a per-minute series here (and the total as activeEnergyBurned); version 1 a total.
                    if try s.peek() == .array { energySeries = try series(&bad) } else { energy = try measure("activeEnergy", { HealthUnits.kcal(per: $0) }, &bad) }
                }
                // A bare distance is in km, the app's metric default.
                else if s.key(k, is: "distance") { distance = try measure("distance", { HealthUnits.metres(per: $0, bare: 1000) }, &bad) }
                else if s.key(k, is: "source") { source = try self.source() ?? source }
                else { try s.skipValue() }
            }
            if let bad { out.bad(line: line, bad); return }
            guard let name, let (from, offset) = start, let (to, _) = end else { out.bad(line: line, "a workout without name, start or end"); return }
            try out.add(HealthWorkout(activity: HealthWorkout.activity(name), start: from, end: to, offset: offset,
                                      energyKcal: energy ?? energySeries, distanceM: distance, source: source), line: line)
        }

        // MARK: - Values

        private mutating func date(_ name: String, _ bad: inout String?) throws -> (Double, Int)? {
            guard try s.peek() == .string else { try s.skipValue(); bad = bad ?? "\(name) is not a string"; return nil }
            let (range, escaped) = try s.stringRange()
            if !escaped, let date = s.withBytes(range, { AppleHealthRecord.parseDate($0) }) { return date }
            bad = bad ?? "unreadable \(name) \(s.decode(range, escaped: escaped))"
            return nil
        }

        private mutating func number(_ name: String, _ bad: inout String?) throws -> Double? {
            let value = try s.number()
            if value == nil { bad = bad ?? "\(name) is not a number" }
            return value
        }

        /// `{"qty": 5.2, "units": "km"}` or a plain number, converted with `per` (nil: an unknown unit).
        private mutating func measure(_ name: String, _ per: (String) -> Double?, _ bad: inout String?) throws -> Double? {
            if try s.peek() != .object { return try number(name, &bad).map { $0 * per("")! } }
            try s.enterObject()
            var qty: Double?, units = ""
            while let k = try s.nextKey() {
                if s.key(k, is: "qty") { qty = try number(name, &bad) }
                else if s.key(k, is: "units") { units = try s.string() ?? "" }
                else { try s.skipValue() }
            }
            guard let qty else { bad = bad ?? "\(name) without qty"; return nil }
            guard let factor = per(units) else { bad = bad ?? "\(name) in unknown units \(units)"; return nil }
            return qty * factor
        }

        /// The sum of a workout's per-minute energy points, each `{"date", "qty", "units"}`.
        private mutating func series(_ bad: inout String?) throws -> Double {
            try s.enterArray()
            var total = 0.0
            while try s.nextElement() { total += try measure("activeEnergy", { HealthUnits.kcal(per: $0) }, &bad) ?? 0 }
            return total
        }

        private mutating func source() throws -> String? {
            guard try s.peek() == .string else { try s.skipValue(); return nil }
            let (range, escaped) = try s.stringRange()
            let known = s.withBytes(range) { bytes in
                recentSources.firstIndex { $0.bytes.count == bytes.count && memcmp(bytes.baseAddress!, $0.bytes, bytes.count) == 0 }
            }
            if let known { return recentSources[known].text }
            let text = s.decode(range, escaped: escaped)
            if recentSources.count == 4 { recentSources.removeFirst() }
            recentSources.append((s.withBytes(range) { Array($0) }, text))
            return text
        }
    }
}
