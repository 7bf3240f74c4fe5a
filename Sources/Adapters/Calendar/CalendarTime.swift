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

    /// The wall time in one word, as a large file holds two per occurrence: the year (signed) in
    /// the top 16 bits, then month, day, hour, minute and second, 8 bits each.
    private let packedWall: UInt64
    let zone: Zone
    /// Seconds since 1970 UTC; for dates and floating times the wall time read as UTC, which
    /// orders them and places them in the window to within a day.
    let instant: Int64
    /// Seconds east of UTC in effect at `wall` (0 unless zoned).
    let offset: Int

    init(wall: LocalDateTime, zone: Zone, instant: Int64, offset: Int) {
        var packed = UInt64(UInt16(truncatingIfNeeded: wall.year))
        for part in [wall.month, wall.day, wall.hour, wall.minute, wall.second] { packed = packed << 8 | UInt64(UInt8(truncatingIfNeeded: part)) }
        packedWall = packed << 8
        self.zone = zone; self.instant = instant; self.offset = offset
    }

    /// A time without its zone, which the holder keeps by number (at most 256 zones, the
    /// number in the wall word's unused low byte); two of them share one 40-byte stride.
    struct Packed: Sendable {
        fileprivate var wallAndZone: UInt64
        fileprivate var instant: Int64
        var zone: Int { Int(wallAndZone & 0xFF) }
    }

    /// The time packed, with its offset apart (so a pair of them packs without padding).
    func packed(zone number: UInt8) -> (Packed, offset: Int32) {
        (Packed(wallAndZone: packedWall | UInt64(number), instant: instant), Int32(offset))
    }

    init(_ packed: Packed, offset: Int32, zone: Zone) {
        packedWall = packed.wallAndZone & ~0xFF; self.zone = zone; instant = packed.instant; self.offset = Int(offset)
    }

    var wall: LocalDateTime {
        let part = { (shift: UInt64) in Int(packedWall >> shift & 0xFF) }
        return LocalDateTime(year: Int(Int16(truncatingIfNeeded: packedWall >> 48)), month: part(40), day: part(32),
                             hour: part(24), minute: part(16), second: part(8))
    }

    var isDate: Bool { zone == .date }
    var isFloating: Bool { zone == .floating }
    var tzid: String? { if case .zoned(let tzid) = zone { return tzid }; return nil }

    /// RFC 3339 as the node takes it: `2025-03-30T10:00:00+02:00`, `…Z`, a bare `2025-03-30`
    /// for dates, and a wall time without offset for floating times. Written as bytes: a large
    /// calendar writes two per occurrence.
    var rfc3339: String {
        let wall = wall
        var out: [UInt8] = []
        out.reserveCapacity(25)
        CalendarTime.write(wall.year, 4, &out); out.append(0x2D); CalendarTime.write(wall.month, 2, &out); out.append(0x2D)
        CalendarTime.write(wall.day, 2, &out)
        if !isDate {
            out.append(UInt8(ascii: "T")); CalendarTime.writeClock(wall, separated: true, &out)
            switch zone {
            case .date, .floating: break
            case .utc: out.append(UInt8(ascii: "Z"))
            case .zoned:
                let minutes = abs(offset) / 60
                out.append(offset < 0 ? 0x2D : 0x2B); CalendarTime.write(minutes / 60, 2, &out); out.append(0x3A); CalendarTime.write(minutes % 60, 2, &out)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The RECURRENCE-ID form of a key (docs/node-api.md): `YYYYMMDDTHHMMSSZ` in UTC for timed
    /// occurrences, `YYYYMMDD` for all-day ones, `YYYYMMDDTHHMMSS` for floating ones.
    var recurrenceKey: String {
        let t = zone == .date || zone == .floating ? wall : CalendarTime.utcWall(instant)
        var out: [UInt8] = []
        out.reserveCapacity(16)
        CalendarTime.write(t.year, 4, &out); CalendarTime.write(t.month, 2, &out); CalendarTime.write(t.day, 2, &out)
        if zone != .date { out.append(UInt8(ascii: "T")); CalendarTime.writeClock(t, separated: false, &out) }
        if zone != .date && zone != .floating { out.append(UInt8(ascii: "Z")) }
        return String(decoding: out, as: UTF8.self)
    }

    /// `value` in decimal, zero-padded to `width` digits.
    private static func write(_ value: Int, _ width: Int, _ out: inout [UInt8]) {
        if value < 0 { out.append(0x2D) }
        let v = value.magnitude
        var digits = 1, scale: UInt = 1
        while v / scale >= 10 { scale *= 10; digits += 1 }
        for _ in digits..<max(digits, width) { out.append(48) }
        while scale > 0 { out.append(UInt8(48 + v / scale % 10)); scale /= 10 }
    }

    /// `HH:MM:SS`, or `HHMMSS` unseparated.
    private static func writeClock(_ t: LocalDateTime, separated: Bool, _ out: inout [UInt8]) {
        write(t.hour, 2, &out); if separated { out.append(0x3A) }
        write(t.minute, 2, &out); if separated { out.append(0x3A) }
        write(t.second, 2, &out)
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
}
