@testable import Adapters

/// An .ics file through libical and the wrapper that reads its tree and expands recurrences.
enum ICalendarHarness {
    /// A fixed window (2027-01-15), so an input expands the same way on every run; fewer RRULE
    /// steps than a scan allows (250 000), so a per-second rule costs milliseconds, not a second.
    static let limits = RecurrenceLimits(windowEnd: 1_800_000_000, maxPerSeries: 100, maxIterations: 5_000)

    static func run(_ bytes: [UInt8]) { _ = try? ICalDocument.read(bytes, limits: limits) }
}
