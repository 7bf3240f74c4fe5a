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
    /// for dates, and a wall time without offset for floating times.
    var rfc3339: String {
        String(unsafeUninitializedCapacity: CalendarTime.rfc3339Capacity, initializingUTF8With: writeRFC3339)
    }

    /// ``rfc3339``'s bytes appended to `out`, with no `String` between: a large calendar writes
    /// two per occurrence.
    func appendRFC3339(to out: inout [UInt8]) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: CalendarTime.rfc3339Capacity) { buffer in
            out.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[..<writeRFC3339(buffer)]))
        }
    }

    /// The longest Int year and offset.
    private static let rfc3339Capacity = 64

    private func writeRFC3339(_ out: UnsafeMutableBufferPointer<UInt8>) -> Int {
        var n = 0
        let wall = wall
        CalendarTime.write(wall.year, 4, out, &n); CalendarTime.put(0x2D, out, &n); CalendarTime.write(wall.month, 2, out, &n)
        CalendarTime.put(0x2D, out, &n); CalendarTime.write(wall.day, 2, out, &n)
        guard !isDate else { return n }
        CalendarTime.put(UInt8(ascii: "T"), out, &n); CalendarTime.writeClock(wall, separated: true, out, &n)
        switch zone {
        case .date, .floating: break
        case .utc: CalendarTime.put(UInt8(ascii: "Z"), out, &n)
        case .zoned:
            let minutes = abs(offset) / 60
            CalendarTime.put(offset < 0 ? 0x2D : 0x2B, out, &n); CalendarTime.write(minutes / 60, 2, out, &n)
            CalendarTime.put(0x3A, out, &n); CalendarTime.write(minutes % 60, 2, out, &n)
        }
        return n
    }

    /// The RECURRENCE-ID form of a key (docs/node-api.md): `YYYYMMDDTHHMMSSZ` in UTC for timed
    /// occurrences, `YYYYMMDD` for all-day ones, `YYYYMMDDTHHMMSS` for floating ones.
    var recurrenceKey: String { key(uid: nil) }

    /// `uid/` and the RECURRENCE-ID form (``recurrenceKey``): an occurrence's key, in one string.
    func occurrenceKey(uid: String) -> String { key(uid: uid) }

    private func key(uid: String?) -> String {
        let slash = uid == nil ? 0 : 1
        var uid = uid ?? ""
        let t = zone == .date || zone == .floating ? wall : CalendarTime.utcWall(instant)
        return uid.withUTF8 { prefix in
            String(unsafeUninitializedCapacity: prefix.count + slash + 40) { out in     // 40: the longest Int year and two-digit fields
                var n = 0
                if slash == 1 {
                    _ = out.initialize(from: prefix); n = prefix.count
                    CalendarTime.put(UInt8(ascii: "/"), out, &n)
                }
                CalendarTime.write(t.year, 4, out, &n); CalendarTime.write(t.month, 2, out, &n); CalendarTime.write(t.day, 2, out, &n)
                if zone != .date { CalendarTime.put(UInt8(ascii: "T"), out, &n); CalendarTime.writeClock(t, separated: false, out, &n) }
                if zone != .date && zone != .floating { CalendarTime.put(UInt8(ascii: "Z"), out, &n) }
                return n
            }
        }
    }

    private static func put(_ byte: UInt8, _ out: UnsafeMutableBufferPointer<UInt8>, _ n: inout Int) {
        out[n] = byte; n += 1
    }

    /// `value` in decimal, zero-padded to `width` digits (a year is at most 5 digits and a sign).
    private static func write(_ value: Int, _ width: Int, _ out: UnsafeMutableBufferPointer<UInt8>, _ n: inout Int) {
        // The usual cases (every part of a date in years 1000 to 9999), without a loop.
        if width == 2 && (0..<100).contains(value) { writeTwoDigits(value, out, &n); return }
        if width == 4 && (1000..<10_000).contains(value) { writeTwoDigits(value / 100, out, &n); writeTwoDigits(value % 100, out, &n); return }
        if value < 0 { put(0x2D, out, &n) }
        let v = value.magnitude
        var digits = 1, scale: UInt = 1
        while v / scale >= 10 { scale *= 10; digits += 1 }
        for _ in digits..<max(digits, width) { put(48, out, &n) }
        while scale > 0 { put(UInt8(48 + v / scale % 10), out, &n); scale /= 10 }
    }

    @inline(__always)
    private static func writeTwoDigits(_ value: Int, _ out: UnsafeMutableBufferPointer<UInt8>, _ n: inout Int) {
        out[n] = UInt8(48 + value / 10); out[n + 1] = UInt8(48 + value % 10); n += 2
    }

    /// `HH:MM:SS`, or `HHMMSS` unseparated.
    private static func writeClock(_ t: LocalDateTime, separated: Bool, _ out: UnsafeMutableBufferPointer<UInt8>, _ n: inout Int) {
        write(t.hour, 2, out, &n); if separated { put(0x3A, out, &n) }
        write(t.minute, 2, out, &n); if separated { put(0x3A, out, &n) }
        write(t.second, 2, out, &n)
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
