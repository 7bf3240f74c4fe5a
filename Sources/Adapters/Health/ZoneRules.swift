import FoundationEssentials
import IngestCore

/// A time zone's UTC offsets, read from the system's tz database (the TZif files under
/// /usr/share/zoneinfo): the agent is built on FoundationEssentials without ICU, whose
/// `TimeZone` knows no named zone. Times after a file's last transition follow the POSIX rule
/// in its footer (`CET-1CEST,M3.5.0,M10.5.0/3`), as "slim" tz files need.
struct ZoneRules: Sendable, Equatable {
    let name: String
    /// UTC seconds of each transition, and the offset in force from it on.
    private let transitions: [Int64]
    private let offsets: [Int32]
    /// Before the first transition.
    private let initial: Int32
    private let rule: PosixRule?

    static let utc = ZoneRules(name: "UTC", transitions: [], offsets: [], initial: 0, rule: nil)

    private init(name: String, transitions: [Int64], offsets: [Int32], initial: Int32, rule: PosixRule?) {
        self.name = name; self.transitions = transitions; self.offsets = offsets; self.initial = initial; self.rule = rule
    }

    /// The zone named `name` (`Europe/Berlin`) in `$TZDIR` or /usr/share/zoneinfo; nil when there
    /// is no such zone or its file is not TZif.
    init?(named name: String) {
        guard !name.isEmpty, !name.hasPrefix("/"), !name.split(separator: "/").contains("..") else { return nil }
        let folder = FileSystem.environment("TZDIR") ?? "/usr/share/zoneinfo"
        guard let bytes = try? FileSystem.readBytes(folder + "/" + name, limit: 1 << 20) else { return nil }
        self.init(name: name, tzif: bytes)
    }

    /// The system's zone: `$TZ` (`Europe/Berlin` or `:Europe/Berlin`), else /etc/localtime, else UTC.
    static let system: ZoneRules = {
        if let tz = FileSystem.environment("TZ"), !tz.isEmpty {
            let name = tz.hasPrefix(":") ? String(tz.dropFirst()) : tz
            if let zone = name.hasPrefix("/") ? ZoneRules(file: name) : ZoneRules(named: name) { return zone }
        }
        return ZoneRules(file: "/etc/localtime") ?? .utc
    }()

    private init?(file: String) {
        guard let bytes = try? FileSystem.readBytes(file, limit: 1 << 20) else { return nil }
        self.init(name: file.lastPathComponent, tzif: bytes)
    }

    /// Parses a TZif file (RFC 8536): its 64-bit (version 2+) data when there is one.
    private init?(name: String, tzif b: [UInt8]) {
        func u32(_ at: Int) -> Int { Int(b[at]) << 24 | Int(b[at + 1]) << 16 | Int(b[at + 2]) << 8 | Int(b[at + 3]) }
        func header(_ at: Int) -> (isutc: Int, isstd: Int, leap: Int, time: Int, type: Int, chars: Int)? {
            guard at + 44 <= b.count, b[at] == 0x54, b[at + 1] == 0x5A, b[at + 2] == 0x69, b[at + 3] == 0x66 else { return nil }
            return (u32(at + 20), u32(at + 24), u32(at + 28), u32(at + 32), u32(at + 36), u32(at + 40))
        }
        guard let v1 = header(0) else { return nil }
        var at = 0, timeSize = 4, h = v1
        if b[4] >= 0x32 {               // version 2 or later: skip the 32-bit block to the 64-bit one
            at = 44 + v1.time * 5 + v1.type * 6 + v1.chars + v1.leap * 8 + v1.isstd + v1.isutc
            guard let v2 = header(at) else { return nil }
            h = v2; timeSize = 8
        }
        var i = at + 44
        let end = i + h.time * timeSize + h.time + h.type * 6 + h.chars + h.leap * (timeSize + 4) + h.isstd + h.isutc
        guard end <= b.count, h.type > 0 else { return nil }
        var times: [Int64] = []
        for _ in 0..<h.time {
            var v: Int64 = 0
            for k in 0..<timeSize { v = v << 8 | Int64(b[i + k]) }
            if timeSize == 4 { v = Int64(Int32(truncatingIfNeeded: v)) }
            times.append(v); i += timeSize
        }
        let indices = (0..<h.time).map { Int(b[i + $0]) }
        i += h.time
        var typeOffsets: [Int32] = []
        for _ in 0..<h.type { typeOffsets.append(Int32(bitPattern: UInt32(u32(i)))); i += 6 }
        guard indices.allSatisfy({ $0 < typeOffsets.count }) else { return nil }
        var rule: PosixRule?
        if timeSize == 8, end < b.count, b[end] == 0x0A, let close = b[(end + 1)...].firstIndex(of: 0x0A) {
            rule = PosixRule(String(decoding: b[(end + 1)..<close], as: UTF8.self))
        }
        self.init(name: name, transitions: times, offsets: indices.map { typeOffsets[$0] }, initial: typeOffsets[0], rule: rule)
    }

    /// The UTC offset in seconds at `instant` (seconds since 1970 UTC).
    func offset(at instant: Double) -> Int {
        let t = Int64(instant.rounded(.down))
        if let last = transitions.last, t >= last, let rule { return rule.offset(at: t) }
        if transitions.isEmpty { return rule?.offset(at: t) ?? Int(initial) }
        // The last transition at or before t.
        var lo = 0, hi = transitions.count
        while lo < hi { let mid = (lo + hi) / 2; if transitions[mid] <= t { lo = mid + 1 } else { hi = mid } }
        return lo == 0 ? Int(initial) : Int(offsets[lo - 1])
    }

}

/// A POSIX TZ rule such as `CET-1CEST,M3.5.0,M10.5.0/3` or `<+03>-3`: standard and daylight
/// offsets and the `Mm.w.d[/time]` days daylight time starts and ends (the form tz files use).
struct PosixRule: Sendable, Equatable {
    var standard: Int
    var daylight: Int?
    var start: (month: Int, week: Int, weekday: Int, time: Int) = (0, 0, 0, 0)
    var end: (month: Int, week: Int, weekday: Int, time: Int) = (0, 0, 0, 0)

    static func == (a: PosixRule, b: PosixRule) -> Bool {
        a.standard == b.standard && a.daylight == b.daylight && a.start == b.start && a.end == b.end
    }

    init?(_ text: String) {
        var s = Substring(text)
        func name() -> Bool {
            if s.first == "<" { guard let close = s.firstIndex(of: ">") else { return false }; s = s[s.index(after: close)...]; return true }
            let letters = s.prefix { $0.isLetter }
            guard letters.count >= 3 else { return false }
            s = s.dropFirst(letters.count); return true
        }
        /// `[+-]hh[:mm[:ss]]` in seconds.
        func clock() -> Int? {
            var sign = 1
            if s.first == "+" || s.first == "-" { sign = s.first == "-" ? -1 : 1; s = s.dropFirst() }
            var parts: [Int] = []
            while parts.count < 3 {
                let digits = s.prefix { $0.isNumber }
                guard !digits.isEmpty, let v = Int(digits) else { break }
                parts.append(v); s = s.dropFirst(digits.count)
                if s.first == ":" { s = s.dropFirst() } else { break }
            }
            guard !parts.isEmpty else { return nil }
            return sign * (parts[0] * 3600 + (parts.count > 1 ? parts[1] * 60 : 0) + (parts.count > 2 ? parts[2] : 0))
        }
        func date() -> (Int, Int, Int, Int)? {
            guard s.first == "M" else { return nil }
            s = s.dropFirst()
            let fields = s.prefix { $0.isNumber || $0 == "." }.split(separator: ".").compactMap { Int($0) }
            s = s.dropFirst(s.prefix { $0.isNumber || $0 == "." }.count)
            guard fields.count == 3 else { return nil }
            var time = 7200
            if s.first == "/" { s = s.dropFirst(); guard let t = clock() else { return nil }; time = t }
            return (fields[0], fields[1], fields[2], time)
        }
        guard name(), let std = clock() else { return nil }
        standard = -std                          // POSIX counts west of Greenwich as positive
        guard !s.isEmpty else { daylight = nil; return }
        guard name() else { return nil }
        if s.first != ",", !s.isEmpty { guard let dst = clock() else { return nil }; daylight = -dst } else { daylight = standard + 3600 }
        guard s.first == "," else { return nil }
        s = s.dropFirst()
        guard let a = date(), s.first == "," else { return nil }
        s = s.dropFirst()
        guard let b = date(), s.isEmpty else { return nil }
        start = a; end = b
    }

    func offset(at t: Int64) -> Int {
        guard let daylight else { return standard }
        let year = CivilCalendar.date(days: Int((t + Int64(standard)) / 86_400)).year
        // Start is given in standard time, end in daylight time.
        let on = Int64(CivilCalendar.days(year: year, month: start.month, day: day(year, start)) * 86_400 + start.time - standard)
        let off = Int64(CivilCalendar.days(year: year, month: end.month, day: day(year, end)) * 86_400 + end.time - daylight)
        let inDaylight = on < off ? (t >= on && t < off) : (t >= on || t < off)      // southern hemisphere wraps the year
        return inDaylight ? daylight : standard
    }

    /// Day of the month of the `week`th (5: last) `weekday` (0: Sunday) of `month`.
    private func day(_ year: Int, _ r: (month: Int, week: Int, weekday: Int, time: Int)) -> Int {
        let first = CivilCalendar.days(year: year, month: r.month, day: 1)
        let firstWeekday = ((first % 7) + 7 + 4) % 7            // 1970-01-01 was a Thursday
        var day = 1 + (r.weekday - firstWeekday + 7) % 7 + (r.week - 1) * 7
        while day > CivilCalendar.daysIn(month: r.month, year: year) { day -= 7 }
        return day
    }
}
