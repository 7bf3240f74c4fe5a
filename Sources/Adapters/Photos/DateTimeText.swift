/// A date-time string taken apart: wall time, the sub-second digits and the zone offset.
struct ParsedDateTime {
    /// Whole seconds; the fraction is kept as written in `fraction`.
    var dateTime: LocalDateTime
    /// Digits after the decimal point, e.g. "25" for "07.25".
    var fraction: String?
    /// Normalised "+HH:MM", when the string carried a zone.
    var offset: String?
    var offsetSeconds: Int?

    /// The same moment in UTC with the fraction folded into nanoseconds; a string without
    /// a zone is taken as UTC already, which is what XMP's GPSTimeStamp is defined to be.
    var utc: LocalDateTime {
        var result = dateTime.shifted(bySeconds: -(offsetSeconds ?? 0))
        result.nanosecond = DateTimeText.nanoseconds(fromDigits: fraction ?? "")
        return result
    }
}

/// Parsing of the date, time and offset spellings found in Exif and XMP.
///
/// One tolerant parser serves both: Exif writes "2021:03:04 05:06:07" while XMP writes
/// ISO 8601 "2021-03-04T05:06:07.25+05:30", and real files mix separators, omit seconds,
/// or fill unknown dates with blanks or zeros (which must come out as nil, not year 0).
enum DateTimeText {
    static func parse(_ text: String) -> ParsedDateTime? {
        Scanner.scanning(text) { scanner in
            guard let year = scanner.number(digits: 4...4), scanner.take(":-"),
                  let month = scanner.number(digits: 1...2), scanner.take(":-"),
                  let day = scanner.number(digits: 1...2), scanner.take("T "),
                  let hour = scanner.number(digits: 1...2), scanner.take(":"),
                  let minute = scanner.number(digits: 1...2) else { return nil }
            var second = 0
            var fraction: String?
            if scanner.take(":") {
                guard let value = scanner.number(digits: 1...2) else { return nil }
                second = value
                if scanner.take(".,") {
                    guard let digits = scanner.digitRun(maxLength: 18) else { return nil }
                    fraction = digits
                }
            }
            scanner.skipSpaces()
            var zone: (text: String, seconds: Int)?
            if !scanner.atEnd {
                guard let parsed = scanner.offset() else { return nil }
                zone = parsed
            }
            guard scanner.atEnd,
                  let dateTime = validated(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
            else { return nil }
            return ParsedDateTime(dateTime: dateTime, fraction: fraction, offset: zone?.text, offsetSeconds: zone?.seconds)
        }
    }

    /// An Exif OffsetTime value ("+02:00", "+0200", "+02", "Z") as "+HH:MM"; nil for blanks.
    static func offset(_ text: String) -> String? {
        Scanner.scanning(text) { scanner in
            guard let zone = scanner.offset(), scanner.atEnd else { return nil }
            return zone.text
        }
    }

    /// SubSecTime digits with padding removed; nil unless only digits remain.
    static func subSecond(_ text: String) -> String? {
        let digits = text.trimmed
        guard !digits.isEmpty, digits.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        return digits
    }

    /// UTC fix time from Exif GPSDateStamp ("2021:03:04") and GPSTimeStamp (hour, minute, second rationals).
    static func gpsTimestamp(dateStamp: String?, time: [Double?]?) -> LocalDateTime? {
        guard let dateStamp, let time, time.count >= 3,
              let hour = time[0], let minute = time[1], let second = time[2],
              hour == hour.rounded(.down), minute == minute.rounded(.down),
              (0..<60).contains(second) else { return nil }
        let date = Scanner.scanning(dateStamp) { scanner -> (year: Int, month: Int, day: Int)? in
            guard let year = scanner.number(digits: 4...4), scanner.take(":-"),
                  let month = scanner.number(digits: 1...2), scanner.take(":-"),
                  let day = scanner.number(digits: 1...2), scanner.atEnd else { return nil }
            return (year, month, day)
        }
        guard let date, (0..<24).contains(hour), (0..<60).contains(minute),
              var result = validated(year: date.year, month: date.month, day: date.day, hour: Int(hour), minute: Int(minute), second: Int(second))
        else { return nil }
        result.nanosecond = min(Int(((second - second.rounded(.down)) * 1e9).rounded()), 999_999_999)
        return result
    }

    /// Nanoseconds from fraction digits: "25" is 250_000_000; digits past the ninth are dropped.
    static func nanoseconds(fromDigits digits: String) -> Int {
        var value = 0
        var scale = 0
        for byte in digits.utf8.prefix(9) {
            value = value * 10 + Int(byte - 0x30)
            scale += 1
        }
        for _ in scale..<9 { value *= 10 }
        return value
    }

    /// A LocalDateTime only if every field is in range for a real calendar date.
    static func validated(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int) -> LocalDateTime? {
        guard (1...9999).contains(year), (1...12).contains(month),
              (1...CivilCalendar.daysIn(month: month, year: year)).contains(day),
              (0..<24).contains(hour), (0..<60).contains(minute), (0..<60).contains(second) else { return nil }
        return LocalDateTime(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
    }

    /// Reads ASCII fields off a date string one token at a time, on the string's own UTF-8 (no
    /// copy of it made: every photo's dates pass here). Lives only inside ``scanning(_:_:)``.
    private struct Scanner {
        private let bytes: Slice<UnsafeBufferPointer<UInt8>>
        private var index: Int

        /// Runs `body` with a scanner over `text` without its leading and trailing blanks.
        static func scanning<R>(_ text: String, _ body: (inout Scanner) -> R?) -> R? {
            var text = text
            return text.withUTF8 { utf8 in
                var scanner = Scanner(bytes: utf8[...].trimmingBlanks)
                return body(&scanner)
            }
        }

        private init(bytes: Slice<UnsafeBufferPointer<UInt8>>) {
            self.bytes = bytes
            index = bytes.startIndex
        }

        var atEnd: Bool { index == bytes.endIndex }

        private var current: UInt8? { index < bytes.endIndex ? bytes[index] : nil }

        /// Consumes one byte if it is one of `choices`.
        mutating func take(_ choices: StaticString) -> Bool {
            guard let byte = current, choices.withUTF8Buffer({ $0.contains(byte) }) else { return false }
            index += 1
            return true
        }

        mutating func skipSpaces() {
            while current == 0x20 { index += 1 }
        }

        /// Up to `maxLength` consecutive digits as text, nil when there are none.
        mutating func digitRun(maxLength: Int) -> String? {
            let start = index
            while index - start < maxLength, let byte = current, (0x30...0x39).contains(byte) { index += 1 }
            return index > start ? String(decoding: bytes[start..<index], as: UTF8.self) : nil
        }

        /// A run of `digits` digits as its value, read off the bytes (no string made per field).
        mutating func number(digits: ClosedRange<Int>) -> Int? {
            let start = index
            var value = 0
            while index - start < digits.upperBound, let byte = current, (0x30...0x39).contains(byte) {
                value = value * 10 + Int(byte - 0x30)
                index += 1
            }
            guard digits.contains(index - start) else {
                index = start
                return nil
            }
            return value
        }

        /// "Z", "+HH", "+HHMM" or "+HH:MM" as normalised text and signed seconds east of UTC.
        mutating func offset() -> (text: String, seconds: Int)? {
            if take("Zz") { return ("+00:00", 0) }
            let negative = current == 0x2D
            guard take("+-"), let hours = number(digits: 2...2), hours <= 18 else { return nil }
            var minutes = 0
            if !atEnd {
                _ = take(":")
                guard let value = number(digits: 2...2), value < 60 else { return nil }
                minutes = value
            }
            let seconds = (hours * 3600 + minutes * 60) * (negative ? -1 : 1)
            // "-00:00" stays as written: it means "offset unknown" (RFC 3339), not UTC.
            return (negative && seconds == 0 ? "-00:00" : CivilCalendar.offsetText(seconds), seconds)
        }
    }
}

extension LocalDateTime {
    /// This wall time moved by a whole number of seconds, carrying into the date.
    func shifted(bySeconds delta: Int) -> LocalDateTime {
        let total = CivilCalendar.days(year: year, month: month, day: day) * 86_400
            + hour * 3600 + minute * 60 + second + delta
        let days = total >= 0 ? total / 86_400 : (total - 86_399) / 86_400
        let secondOfDay = total - days * 86_400
        let date = CivilCalendar.date(days: days)
        return LocalDateTime(year: date.year, month: date.month, day: date.day,
                             hour: secondOfDay / 3600, minute: secondOfDay % 3600 / 60,
                             second: secondOfDay % 60, nanosecond: nanosecond)
    }
}
