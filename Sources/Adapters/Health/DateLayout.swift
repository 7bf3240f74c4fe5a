import FoundationEssentials

/// A date or date-time as a file writes it, before a zone is applied.
struct WallTime: Equatable {
    var year: Int, month: Int, day: Int
    var hour = 0, minute = 0
    var second = 0.0
    /// False for a date alone (a spreadsheet's daily row).
    var hasTime = false
    /// Seconds east of UTC, when the text gives an offset.
    var offset: Int?

    /// (seconds since 1970 UTC, offset): by the written offset, else the wall time in `zone`.
    func instant(in zone: ZoneRules) -> (Double, Int) {
        guard let offset else { return HealthTime.instant(year: year, month: month, day: day, hour: hour, minute: minute, second: second, in: zone) }
        let days = CivilCalendar.days(year: year, month: month, day: day)
        return (Double(days * 86_400 + hour * 3600 + minute * 60 - offset) + second, offset)
    }

    /// This date's local midnight and the next one in `zone` (23 or 25 hours apart across a DST change).
    func dayBounds(in zone: ZoneRules) -> (start: Double, end: Double, offset: Int) {
        let (start, offset) = HealthTime.instant(year: year, month: month, day: day, in: zone)
        let next = CivilCalendar.date(days: CivilCalendar.days(year: year, month: month, day: day) + 1)
        return (start, HealthTime.instant(year: next.year, month: next.month, day: next.day, in: zone).0, offset)
    }
}

/// How a date column is written: a strftime-like pattern (`%Y-%m-%d`, `%d.%m.%Y %H:%M`,
/// `%d %b %y`) or, when empty, ISO 8601 (`2024-06-01`, `2024-06-01T08:00`, `2024-06-01 08:00:00 +0200`,
/// `…Z`, `…+02:00`).
///
/// Pattern letters: `%Y` (4 digits), `%y` (2 digits: 69–99 are 19xx, as in POSIX), `%m`, `%d`,
/// `%H`, `%M`, `%S` (1 or 2 digits), `%b` (an English month name or its first three letters),
/// `%%`; any other character must stand as written.
struct DateLayout: Sendable {
    private enum Part: Sendable, Equatable { case year4, year2, month, day, hour, minute, second, monthName, literal(UInt8) }

    /// nil: ISO 8601.
    private let parts: [Part]?

    /// ISO 8601 dates and date-times.
    static let iso = DateLayout(parts: nil)
    private init(parts: [Part]?) { self.parts = parts }

    /// - Throws: `FileReadError` naming an unknown `%` letter.
    init(_ pattern: String?) throws(FileReadError) {
        guard let pattern, !pattern.isEmpty else { self.init(parts: nil); return }
        var parts: [Part] = []
        var bytes = Array(pattern.utf8)[...]
        while let c = bytes.popFirst() {
            guard c == UInt8(ascii: "%") else { parts.append(.literal(c)); continue }
            switch bytes.popFirst() {
            case UInt8(ascii: "Y"): parts.append(.year4)
            case UInt8(ascii: "y"): parts.append(.year2)
            case UInt8(ascii: "m"): parts.append(.month)
            case UInt8(ascii: "d"): parts.append(.day)
            case UInt8(ascii: "H"): parts.append(.hour)
            case UInt8(ascii: "M"): parts.append(.minute)
            case UInt8(ascii: "S"): parts.append(.second)
            case UInt8(ascii: "b"): parts.append(.monthName)
            case UInt8(ascii: "%"): parts.append(.literal(c))
            case let other: throw FileReadError("DateFormat \(pattern): %\(other.map { String(UnicodeScalar($0)) } ?? "") is not one of %Y %y %m %d %H %M %S %b")
            }
        }
        self.init(parts: parts)
    }

    func parse(_ text: String) -> WallTime? { parse(Array(text.utf8)[...]) }

    func parse(_ text: ArraySlice<UInt8>) -> WallTime? {
        var b = text
        while b.first == 0x20 { b.removeFirst() }
        while b.last == 0x20 { b.removeLast() }
        guard let time = parts.map({ pattern(b, $0) }) ?? iso(b) else { return nil }
        guard (1...12).contains(time.month), (1...CivilCalendar.daysIn(month: time.month, year: time.year)).contains(time.day),
              time.hour < 24, time.minute < 60, time.second < 61 else { return nil }
        return time
    }

    private func pattern(_ b: ArraySlice<UInt8>, _ parts: [Part]) -> WallTime? {
        var b = b
        var t = WallTime(year: 1970, month: 1, day: 1)
        for part in parts {
            switch part {
            case .literal(let c): guard b.popFirst() == c else { return nil }
            case .year4: guard let v = Self.digits(&b, 4, 4) else { return nil }; t.year = v
            case .year2: guard let v = Self.digits(&b, 2, 2) else { return nil }; t.year = v < 69 ? 2000 + v : 1900 + v
            case .month: guard let v = Self.digits(&b, 1, 2) else { return nil }; t.month = v
            case .day: guard let v = Self.digits(&b, 1, 2) else { return nil }; t.day = v
            case .hour: guard let v = Self.digits(&b, 1, 2) else { return nil }; t.hour = v; t.hasTime = true
            case .minute: guard let v = Self.digits(&b, 1, 2) else { return nil }; t.minute = v
            case .second: guard let v = Self.digits(&b, 1, 2) else { return nil }; t.second = Double(v)
            case .monthName:
                var name: [UInt8] = []
                while let c = b.first, (c | 0x20) >= UInt8(ascii: "a"), (c | 0x20) <= UInt8(ascii: "z") { name.append(c | 0x20); b.removeFirst() }
                guard name.count >= 3, let index = Self.months.firstIndex(where: { $0.starts(with: name) }) else { return nil }
                t.month = index + 1
            }
        }
        return b.isEmpty ? t : nil
    }

    private static let months = ["january", "february", "march", "april", "may", "june", "july", "august", "september",
                                 "october", "november", "december"].map { Array($0.utf8) }

    /// `YYYY-MM-DD`, then optionally `T` or a space, `HH:MM[:SS[.fff]]`, an optional space and
    /// `Z`, `±HH:MM`, `±HHMM` or `±HH`.
    private func iso(_ b: ArraySlice<UInt8>) -> WallTime? {
        var b = b
        guard let y = Self.digits(&b, 4, 4), b.popFirst() == UInt8(ascii: "-"), let m = Self.digits(&b, 2, 2),
              b.popFirst() == UInt8(ascii: "-"), let d = Self.digits(&b, 2, 2) else { return nil }
        var t = WallTime(year: y, month: m, day: d)
        guard let separator = b.popFirst() else { return t }
        guard separator == UInt8(ascii: "T") || separator == UInt8(ascii: " "), let h = Self.digits(&b, 2, 2),
              b.popFirst() == UInt8(ascii: ":"), let mi = Self.digits(&b, 2, 2) else { return nil }
        t.hour = h; t.minute = mi; t.hasTime = true
        if b.first == UInt8(ascii: ":") {
            b.removeFirst()
            guard let s = Self.digits(&b, 2, 2) else { return nil }
            t.second = Double(s)
            if b.first == UInt8(ascii: ".") || b.first == UInt8(ascii: ",") {
                b.removeFirst()
                var scale = 0.1
                guard b.first.map({ $0 >= 0x30 && $0 <= 0x39 }) == true else { return nil }
                while let c = b.first, c >= 0x30, c <= 0x39 { t.second += Double(c - 0x30) * scale; scale /= 10; b.removeFirst() }
            }
        }
        if b.first == 0x20 { b.removeFirst() }
        guard let sign = b.popFirst() else { return t }
        if sign == UInt8(ascii: "Z") { t.offset = 0; return b.isEmpty ? t : nil }
        guard sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-"), let oh = Self.digits(&b, 2, 2), oh <= 18 else { return nil }
        if b.first == UInt8(ascii: ":") { b.removeFirst() }
        let om = b.isEmpty ? 0 : Self.digits(&b, 2, 2)
        guard let om, om < 60, b.isEmpty else { return nil }
        t.offset = (sign == UInt8(ascii: "-") ? -1 : 1) * (oh * 3600 + om * 60)
        return t
    }

    /// `min`…`max` ASCII digits (as many as there are, up to `max`) as a number.
    private static func digits(_ b: inout ArraySlice<UInt8>, _ min: Int, _ max: Int) -> Int? {
        var value = 0, count = 0
        while count < max, let c = b.first, c >= 0x30, c <= 0x39 { value = value * 10 + Int(c - 0x30); count += 1; b.removeFirst() }
        return count >= min ? value : nil
    }
}
