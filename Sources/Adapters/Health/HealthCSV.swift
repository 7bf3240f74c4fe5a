import FoundationEssentials
import IngestCore

/// RFC 4180 rows: fields in double quotes may hold the delimiter, line breaks and doubled
/// quotes; rows end in LF or CRLF; a UTF-8 byte-order mark is skipped; the delimiter is `,` or
/// `;` (spreadsheets in locales with a decimal comma write `;`), sniffed from the header line.
struct CSVRows {
    private let bytes: [UInt8]
    let delimiter: UInt8
    private var position = 0
    /// The 1-based physical line the next row starts on.
    private(set) var line: Int

    init(_ bytes: [UInt8], delimiter: UInt8? = nil) {
        self.bytes = bytes
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { position = 3 }
        self.delimiter = delimiter ?? Self.sniff(bytes[position...])
        line = 1
    }

    /// `;` when the first line has more semicolons than commas outside quotes, else `,`.
    static func sniff(_ bytes: ArraySlice<UInt8>) -> UInt8 {
        var commas = 0, semicolons = 0, quoted = false
        for c in bytes {
            if c == UInt8(ascii: "\"") { quoted.toggle() }
            else if quoted { continue }
            else if c == UInt8(ascii: "\n") { break }
            else if c == UInt8(ascii: ",") { commas += 1 }
            else if c == UInt8(ascii: ";") { semicolons += 1 }
        }
        return semicolons > commas ? UInt8(ascii: ";") : UInt8(ascii: ",")
    }

    /// The next row that is not blank, and the line it starts on.
    mutating func next() -> (fields: [String], line: Int)? {
        while position < bytes.count {
            let start = line
            var fields: [String] = []
            var field: [UInt8] = []
            var quoted = false, wasQuoted = false
            row: while position < bytes.count {
                let c = bytes[position]
                position += 1
                if quoted {
                    if c == UInt8(ascii: "\"") {
                        if position < bytes.count, bytes[position] == UInt8(ascii: "\"") { field.append(c); position += 1 } else { quoted = false }
                    } else {
                        if c == UInt8(ascii: "\n") { line += 1 }
                        field.append(c)
                    }
                    continue
                }
                switch c {
                case UInt8(ascii: "\"") where field.isEmpty && !wasQuoted: quoted = true; wasQuoted = true
                case delimiter:
                    fields.append(String(decoding: field, as: UTF8.self)); field.removeAll(keepingCapacity: true); wasQuoted = false
                case UInt8(ascii: "\r"), UInt8(ascii: "\n"):
                    if c == UInt8(ascii: "\r"), position < bytes.count, bytes[position] == UInt8(ascii: "\n") { position += 1 }
                    line += 1
                    break row
                default: field.append(c)
                }
            }
            if fields.isEmpty, field.isEmpty, !wasQuoted { continue }      // a blank line
            fields.append(String(decoding: field, as: UTF8.self))
            return (fields, start)
        }
        return nil
    }
}

/// What one CSV column holds.
enum HealthColumn: Equatable {
    enum HeartRatePart: Equatable { case avg, min, max }
    /// Steps, energy (scaled to kcal), resting heart rate, HRV.
    case quantity(HealthSample.Kind, scale: Double)
    /// Parts of one heart-rate sample.
    case heartRate(HeartRatePart)
    /// Time in a sleep stage, in units of `secondsPerUnit`.
    case sleep(HealthSample.SleepStage, secondsPerUnit: Double)
    /// A night's total: only its presence matters (see ``HealthSample/aggregatedSleep(_:totalGiven:start:inBedStart:offset:source:daily:)``).
    case sleepTotal
}

/// A header's meaning: where the date is, how it is written, what each read column holds.
struct HealthCSVPlan {
    var dateColumn: Int
    var dateLayout: DateLayout
    var columns: [(index: Int, meaning: HealthColumn)]
    /// Headers this format does not read, for one note.
    var ignored: [String] = []
}

/// The row loop both CSV readers share; they differ only in how a header becomes a plan.
enum HealthCSV {
    /// Reads `input`: the header (from the file's first line even when only the part past
    /// `input.offset` is read), then each row into samples. A row with the wrong number of
    /// fields, an unreadable date or a cell that is not a number is skipped as bad. Row lines are
    /// physical lines; in a read from an offset they count from there.
    static func read(_ input: HealthInput, format: String, source: String, zone: ZoneRules, into out: HealthCollector,
                     plan: ([String]) throws(FileReadError) -> HealthCSVPlan) throws(FileReadError) {
        var rows: CSVRows
        let header: [String]
        if input.offset > 0 {
            let firstBytes: [UInt8]
            do { firstBytes = try FileSystem.readBytes(input.path, limit: 1 << 20) } catch { throw FileReadError(error.message) }
            var head = CSVRows(firstBytes)
            guard let first = head.next() else { throw FileReadError("no header line") }
            header = first.fields
            rows = CSVRows(try input.bytes(), delimiter: head.delimiter)
        } else {
            rows = CSVRows(try input.bytes())
            guard let first = rows.next() else { throw FileReadError("empty") }
            header = first.fields
        }
        let names = header.map(trimmed)
        let plan = try plan(names)
        let ignored = plan.ignored.filter { !$0.isEmpty }
        if !ignored.isEmpty { out.note("\(format): columns not read: \(ignored.joined(separator: ", "))") }
        let whence = input.offset > 0 ? " (lines counted from byte \(input.offset), where the file grew)" : ""
        let decimalComma = rows.delimiter == UInt8(ascii: ";")
        nextRow: while let (fields, line) = rows.next() {
            guard fields.count == header.count else {
                out.bad(line: line, "\(fields.count) fields where the header has \(header.count)\(whence)"); continue
            }
            guard let time = plan.dateLayout.parse(fields[plan.dateColumn]) else {
                out.bad(line: line, "unreadable date \(fields[plan.dateColumn])\(whence)"); continue
            }
            var values: [(HealthColumn, Double)] = []
            for (index, meaning) in plan.columns {
                let cell = trimmed(fields[index])
                if cell.isEmpty { continue }                  // nothing measured in that period
                guard let value = number(cell, decimalComma: decimalComma) else {
                    out.bad(line: line, "\(cell) in \(names[index]) is not a number\(whence)"); continue nextRow
                }
                values.append((meaning, value))
            }
            // A row is one reading: a 10-million-step row is wrong as a whole, its other cells too.
            let rowSamples = samples(values, at: time, zone: zone, source: source)
            if let why = rowSamples.lazy.compactMap(\.implausibility).first { out.bad(line: line, why + whence); continue }
            for sample in rowSamples { try out.add(sample, line: line) }
        }
    }

    /// One row's samples. A date-time row gives points; a date-only row gives daily figures from
    /// local midnight to the next, and its sleep starts at that midnight (the roll-up measures
    /// sleep by its interval, and the night lands on the row's date, the day of waking).
    static func samples(_ values: [(HealthColumn, Double)], at time: WallTime, zone: ZoneRules, source: String) -> [HealthSample] {
        let (start, end, offset): (Double, Double, Int)
        if time.hasTime { let (instant, o) = time.instant(in: zone); (start, end, offset) = (instant, instant, o) }
        else { (start, end, offset) = time.dayBounds(in: zone) }
        let daily = !time.hasTime
        var out: [HealthSample] = []
        var avg: Double?, low: Double?, high: Double?
        var sleep: [HealthSample.SleepStage: Double] = [:]
        var totalGiven = false
        for (meaning, value) in values {
            switch meaning {
            case .quantity(let kind, let scale):
                out.append(HealthSample(kind: kind, start: start, end: end, offset: offset, value: value * scale, source: source, daily: daily))
            case .heartRate(.avg): avg = value
            case .heartRate(.min): low = value
            case .heartRate(.max): high = value
            case .sleep(let stage, let secondsPerUnit): sleep[stage, default: 0] += value * secondsPerUnit
            case .sleepTotal: totalGiven = true
            }
        }
        // Only a minimum and maximum: their midpoint stands in for the average.
        if let value = avg ?? low.flatMap({ l in high.map { (l + $0) / 2 } }) ?? low ?? high {
            out.append(HealthSample(kind: .heartRate, start: start, end: end, offset: offset, value: value, source: source,
                                    low: low, high: high, daily: daily))
        }
        if !sleep.isEmpty {
            out += HealthSample.aggregatedSleep(sleep, totalGiven: totalGiven, start: start, offset: offset, source: source, daily: daily)
        }
        return out
    }

    /// A cell as a number: JSON's grammar, with a decimal comma in `;`-separated files.
    static func number(_ cell: String, decimalComma: Bool) -> Double? {
        var bytes = Array(cell.utf8)
        if decimalComma { for i in bytes.indices where bytes[i] == UInt8(ascii: ",") { bytes[i] = UInt8(ascii: ".") } }
        return bytes.withUnsafeBufferPointer { JSONScanner.number($0) }
    }

    static func trimmed(_ text: String) -> String {
        var s = Substring(text)
        while s.first == " " || s.first == "\t" { s.removeFirst() }
        while s.last == " " || s.last == "\t" { s.removeLast() }
        return String(s)
    }
}
