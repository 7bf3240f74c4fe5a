import IngestCore

/// The time and coordinate notations history exports write, read from bytes: RFC 3339 times
/// (`2024-06-01T07:00:00.123Z`, `…+02:00`), epoch seconds or milliseconds, E7 integers, and
/// Timeline.json's `"47.3769°, 8.5417°"`.
enum HistoryTime {
    /// Seconds since the epoch of an RFC 3339 time, or nil. A time without a zone designator is
    /// no instant, unless the format says what it is: GPX's schema makes it UTC (`zonelessIsUTC`).
    static func parse(_ text: some Collection<UInt8>, zonelessIsUTC: Bool = false) -> Double? {
        let b = Array(text)
        guard b.count >= 19, b[4] == UInt8(ascii: "-"), b[7] == UInt8(ascii: "-"),
              b[10] == UInt8(ascii: "T") || b[10] == UInt8(ascii: " ") || b[10] == UInt8(ascii: "t"),
              b[13] == UInt8(ascii: ":"), b[16] == UInt8(ascii: ":") else { return nil }
        func digits(_ from: Int, _ count: Int) -> Int? {
            var v = 0
            for i in from..<(from + count) {
                guard i < b.count, b[i] >= 48, b[i] <= 57 else { return nil }
                v = v * 10 + Int(b[i] - 48)
            }
            return v
        }
        guard let year = digits(0, 4), let month = digits(5, 2), let day = digits(8, 2), let hour = digits(11, 2),
              let minute = digits(14, 2), let second = digits(17, 2), (1...12).contains(month), (1...31).contains(day),
              hour < 24, minute < 60, second < 61 else { return nil }
        var i = 19
        var fraction = 0.0
        if i < b.count, b[i] == UInt8(ascii: ".") {
            var scale = 0.1
            i += 1
            while i < b.count, b[i] >= 48, b[i] <= 57 { fraction += Double(b[i] - 48) * scale; scale /= 10; i += 1 }
        }
        var offset = 0
        if i < b.count, b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-") {
            let sign = b[i] == UInt8(ascii: "-") ? -1 : 1
            let colon = i + 3 < b.count && b[i + 3] == UInt8(ascii: ":")
            guard let h = digits(i + 1, 2), let m = digits(i + (colon ? 4 : 3), 2) else { return nil }
            offset = sign * (h * 3600 + m * 60)
            i += colon ? 6 : 5
        } else if i < b.count, b[i] == UInt8(ascii: "Z") || b[i] == UInt8(ascii: "z") {
            i += 1
        } else if !zonelessIsUTC {
            return nil
        }
        guard i == b.count else { return nil }
        let days = CivilCalendar.days(year: year, month: month, day: day)
        return Double(days * 86_400 + hour * 3600 + minute * 60 + second - offset) + fraction
    }

    static func parse(_ text: String) -> Double? { parse(Array(text.utf8)) }

    /// `"47.3769°, 8.5417°"` (Android's Timeline.json, also without the degree signs) or
    /// `"geo:47.376900,8.541700"` (the iPhone's export) as latitude and longitude.
    static func latLng(_ text: String) -> (Double, Double)? {
        let parts = text.utf8.split(separator: UInt8(ascii: ","))
        func number(_ part: Substring.UTF8View.SubSequence) -> Double? {
            // The digits, sign and point only: the degree sign and spaces around it go.
            Double(String(decoding: part.filter { ($0 >= 48 && $0 <= 57) || $0 == 46 || $0 == 45 }, as: UTF8.self))
        }
        guard parts.count == 2, let lat = number(parts[0]), let lon = number(parts[1]) else { return nil }
        return (lat, lon)
    }

    /// `YYYY-MM-DD` of a UTC instant: the day group its points are kept in.
    static func day(_ time: Double) -> String { day(number: Int((time / 86_400).rounded(.down))) }

    /// `YYYY-MM-DD` of the day `number` days after 1970-01-01.
    static func day(number: Int) -> String {
        let d = CivilCalendar.date(days: number)
        return CivilCalendar.dateText(year: d.year, month: d.month, day: d.day)
    }

    /// Days since 1970-01-01 of a `YYYY-MM-DD` (0 for another text).
    static func number(ofDay day: some StringProtocol) -> Int {
        let f = day.split(separator: "-").compactMap { Int($0) }
        return f.count == 3 ? CivilCalendar.days(year: f[0], month: f[1], day: f[2]) : 0
    }

    /// The first instant of a `YYYY-MM-DD`, UTC.
    static func start(ofDay day: some StringProtocol) -> Double { Double(number(ofDay: day)) * 86_400 }
}
