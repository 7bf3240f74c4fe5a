/// A DTSTART, DTEND, DUE or RECURRENCE-ID value (or one occurrence of it), resolved to what the
/// node needs: the wall time as written in its zone, the instant, and the offset between them.
struct CalendarTime: Sendable, Hashable {
    enum Zone: Sendable, Hashable {
        /// `VALUE=DATE`: an all-day date.
        case date
        /// No zone at all: the same wall time wherever the reader is.
        case floating
        case utc
        /// A TZID (VTIMEZONE or IANA name) or the calendar's X-WR-TIMEZONE, as written.
        case zoned(tzid: String)
    }

    var wall: LocalDateTime
    var zone: Zone
    /// Seconds since 1970 UTC; for dates and floating times the wall time read as UTC, which
    /// orders them and places them in the window to within a day.
    var instant: Int64
    /// Seconds east of UTC in effect at `wall` (0 unless zoned).
    var offset: Int

    var isDate: Bool { zone == .date }
    var isFloating: Bool { zone == .floating }
    var tzid: String? { if case .zoned(let tzid) = zone { return tzid }; return nil }

    /// RFC 3339 as the node takes it: `2025-03-30T10:00:00+02:00`, `…Z`, a bare `2025-03-30`
    /// for dates, and a wall time without offset for floating times.
    var rfc3339: String {
        let date = CivilCalendar.dateText(year: wall.year, month: wall.month, day: wall.day)
        if isDate { return date }
        let time = "\(date)T\(pad(wall.hour)):\(pad(wall.minute)):\(pad(wall.second))"
        switch zone {
        case .date, .floating: return time
        case .utc: return time + "Z"
        case .zoned: return time + CivilCalendar.offsetText(offset)
        }
    }

    /// The RECURRENCE-ID form of a key (docs/node-api.md): `YYYYMMDDTHHMMSSZ` in UTC for timed
    /// occurrences, `YYYYMMDD` for all-day ones, `YYYYMMDDTHHMMSS` for floating ones.
    var recurrenceKey: String {
        switch zone {
        case .date: return "\(pad(wall.year, 4))\(pad(wall.month))\(pad(wall.day))"
        case .floating: return compact(wall)
        case .utc, .zoned: return compact(CalendarTime.utcWall(instant)) + "Z"
        }
    }

    /// The wall time of `instant` in UTC.
    static func utcWall(_ instant: Int64) -> LocalDateTime {
        let days = Int((Double(instant) / 86_400).rounded(.down))
        let seconds = Int(instant - Int64(days) * 86_400)
        let date = CivilCalendar.date(days: days)
        return LocalDateTime(year: date.year, month: date.month, day: date.day, hour: seconds / 3600, minute: seconds % 3600 / 60, second: seconds % 60)
    }

    /// `wall` read as if it were UTC: seconds since 1970.
    static func instant(ofWall wall: LocalDateTime) -> Int64 {
        Int64(CivilCalendar.days(year: wall.year, month: wall.month, day: wall.day)) * 86_400
            + Int64(wall.hour * 3600 + wall.minute * 60 + wall.second)
    }

    private func compact(_ t: LocalDateTime) -> String {
        "\(pad(t.year, 4))\(pad(t.month))\(pad(t.day))T\(pad(t.hour))\(pad(t.minute))\(pad(t.second))"
    }

    private func pad(_ n: Int, _ width: Int = 2) -> String { CivilCalendar.pad(n, width) }
}
