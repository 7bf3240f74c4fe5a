import FoundationEssentials
import IngestCore

/// RFC 4180 rows: fields in double quotes may hold the delimiter, line breaks and doubled
/// quotes; rows end in LF or CRLF; a UTF-8 byte-order mark is skipped; the delimiter is `,` or
/// `;` (spreadsheets in locales with a decimal comma write `;`), sniffed from the header line.
/// Read a block at a time: a file of any size takes a block and its longest row.
struct CSVRows {
    private var reader: BlockReader
    let delimiter: UInt8
    /// The row `next()` fills, kept so its buffers are reused from row to row.
    private var row = CSVRow()
    /// A quote left open would otherwise gather the rest of the file into one field.
    static let maxRowBytes = 1 << 20

    init(_ stream: any ByteStream, delimiter: UInt8? = nil) { self.init(BlockReader(stream), delimiter) }
    init(_ bytes: [UInt8], delimiter: UInt8? = nil) { self.init(BlockReader(bytes), delimiter) }

    private init(_ reader: BlockReader, _ delimiter: UInt8?) {
        var reader = reader
        let head = reader.head(BlockReader.blockSize)
        let bom = head.starts(with: [0xEF, 0xBB, 0xBF])
        if bom { reader.position += 3 }
        self.delimiter = delimiter ?? Self.sniff(head.dropFirst(bom ? 3 : 0))
        self.reader = reader
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

    /// The next row that is not blank; nil at the end of the file.
    /// - Throws: `FileReadError` when the file cannot be read on, or a row runs past `maxRowBytes`.
    mutating func next() throws(FileReadError) -> CSVRow? {
        while try reader.ensure(1) {
            row.start(line: reader.line)
            var quoted = false, wasQuoted = false, fieldStart = 0
            row: while let c = try byte() {
                if quoted {
                    if c == UInt8(ascii: "\"") {
                        if try peek() == UInt8(ascii: "\"") { row.bytes.append(c); reader.position += 1 } else { quoted = false }
                    } else {
                        if c == UInt8(ascii: "\n") { reader.line += 1 }
                        row.bytes.append(c)
                    }
                    continue
                }
                switch c {
                case UInt8(ascii: "\"") where row.bytes.count == fieldStart && !wasQuoted: quoted = true; wasQuoted = true
                case delimiter: row.ends.append(row.bytes.count); fieldStart = row.bytes.count; wasQuoted = false
                case UInt8(ascii: "\r"), UInt8(ascii: "\n"):
                    if c == UInt8(ascii: "\r"), try peek() == UInt8(ascii: "\n") { reader.position += 1 }
                    reader.line += 1
                    break row
                default: row.bytes.append(c)
                }
            }
            if row.ends.isEmpty, row.bytes.isEmpty, !wasQuoted { continue }      // a blank line
            row.ends.append(row.bytes.count)
            return row
        }
        return nil
    }

    /// The next byte, refilling the window when it is used up; nil at the end.
    private mutating func byte() throws(FileReadError) -> UInt8? {
        if reader.position == reader.bytes.count {
            guard row.bytes.count <= Self.maxRowBytes else {
                throw FileReadError("line \(row.line): a row runs past \(Self.maxRowBytes >> 20) MiB (a quote left open?)")
            }
            guard try reader.refill() else { return nil }
        }
        defer { reader.position += 1 }
        return reader.bytes[reader.position]
    }

    private mutating func peek() throws(FileReadError) -> UInt8? {
        try reader.ensure(1) ? reader.bytes[reader.position] : nil
    }
}

/// One row: its fields unquoted, back to back in `bytes`, and the line it starts on.
struct CSVRow {
    fileprivate(set) var bytes: [UInt8] = []
    /// Where each field ends in `bytes`.
    fileprivate(set) var ends: [Int] = []
    /// The 1-based physical line the row starts on.
    fileprivate(set) var line = 1

    var count: Int { ends.count }
    subscript(field: Int) -> ArraySlice<UInt8> { bytes[(field == 0 ? 0 : ends[field - 1])..<ends[field]] }
    func string(_ field: Int) -> String { String(decoding: self[field], as: UTF8.self) }
    var fields: [String] { (0..<count).map(string) }

    fileprivate mutating func start(line: Int) {
        bytes.removeAll(keepingCapacity: true); ends.removeAll(keepingCapacity: true); self.line = line
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
            var head = CSVRows(try FileByteStream(path: input.path))
            guard let first = try head.next() else { throw FileReadError("no header line") }
            header = first.fields
            rows = CSVRows(try input.stream(), delimiter: head.delimiter)
        } else {
            rows = CSVRows(try input.stream())
            guard let first = try rows.next() else { throw FileReadError("empty") }
            header = first.fields
        }
        let names = header.map(trimmed)
        let plan = try plan(names)
        let ignored = plan.ignored.filter { !$0.isEmpty }
        if !ignored.isEmpty { out.note("\(format): columns not read: \(ignored.joined(separator: ", "))") }
        let whence = input.offset > 0 ? " (lines counted from byte \(input.offset), where the file grew)" : ""
        let decimalComma = rows.delimiter == UInt8(ascii: ";")
        var values: [(HealthColumn, Double)] = []
        nextRow: while let row = try rows.next() {
            let line = row.line
            guard row.count == header.count else {
                out.bad(line: line, "\(row.count) fields where the header has \(header.count)\(whence)"); continue
            }
            guard let time = plan.dateLayout.parse(row[plan.dateColumn]) else {
                out.bad(line: line, "unreadable date \(row.string(plan.dateColumn))\(whence)"); continue
            }
            values.removeAll(keepingCapacity: true)
            for (index, meaning) in plan.columns {
                let cell = trimmed(row[index])
                if cell.isEmpty { continue }                  // nothing measured in that period
                guard let value = number(cell, decimalComma: decimalComma) else {
                    out.bad(line: line, "\(String(decoding: cell, as: UTF8.self)) in \(names[index]) is not a number\(whence)"); continue nextRow
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
    static func number(_ cell: ArraySlice<UInt8>, decimalComma: Bool) -> Double? {
        guard decimalComma, cell.contains(UInt8(ascii: ",")) else { return cell.withUnsafeBufferPointer { JSONScanner.number($0) } }
        var bytes = Array(cell)
        for i in bytes.indices where bytes[i] == UInt8(ascii: ",") { bytes[i] = UInt8(ascii: ".") }
        return bytes.withUnsafeBufferPointer { JSONScanner.number($0) }
    }

    /// Without the spaces and tabs around it.
    static func trimmed(_ cell: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        var s = cell
        while s.first == 0x20 || s.first == 0x09 { s.removeFirst() }
        while s.last == 0x20 || s.last == 0x09 { s.removeLast() }
        return s
    }

    static func trimmed(_ text: String) -> String { String(decoding: trimmed(Array(text.utf8)[...]), as: UTF8.self) }
}
