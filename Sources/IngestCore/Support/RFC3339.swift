import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

extension Date {
    /// RFC 3339 in UTC to the second (`2026-12-01T20:12:34Z`), as the node wants times: exactly
    /// what `Date.ISO8601FormatStyle()` writes, made by gmtime_r. The format style's first use
    /// builds a calendar, and `capture` dates its note before it is durable.
    public var rfc3339: String {
        // Foundation's calendar is Julian before 1582 (gmtime_r's is proleptic Gregorian), and
        // four-digit years end at 9999: outside 1600 ... 9999 the format style writes it.
        let seconds = timeIntervalSince1970.rounded(.down)
        var time = time_t(0), parts = tm()
        guard seconds >= -11_676_096_000, seconds < 253_402_300_800 else { return formatted(Date.ISO8601FormatStyle()) }
        time = time_t(seconds)
        guard gmtime_r(&time, &parts) != nil else { return formatted(Date.ISO8601FormatStyle()) }
        var out: [UInt8] = []
        out.reserveCapacity(20)
        func digits(_ value: Int32, _ count: Int, then separator: UInt8) {
            var scale: Int32 = 1
            for _ in 1..<count { scale *= 10 }
            var rest = value
            while scale > 0 { out.append(UInt8(48 + rest / scale)); rest %= scale; scale /= 10 }
            out.append(separator)
        }
        digits(parts.tm_year + 1900, 4, then: UInt8(ascii: "-"))
        digits(parts.tm_mon + 1, 2, then: UInt8(ascii: "-"))
        digits(parts.tm_mday, 2, then: UInt8(ascii: "T"))
        digits(parts.tm_hour, 2, then: UInt8(ascii: ":"))
        digits(parts.tm_min, 2, then: UInt8(ascii: ":"))
        digits(parts.tm_sec, 2, then: UInt8(ascii: "Z"))
        return String(decoding: out, as: UTF8.self)
    }
}
