import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// CLOCK_MONOTONIC in nanoseconds: for deadlines, and for the log line bench/run.sh times captures by.
func monotonicNanoseconds() -> Int {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return ts.tv_sec * 1_000_000_000 + ts.tv_nsec
}

/// CLOCK_MONOTONIC in seconds: for timers that a step of the wall clock must not move.
public func monotonicSeconds() -> Double { Double(monotonicNanoseconds()) / 1e9 }

/// The wall clock, read together with CLOCK_BOOTTIME so that a step of the wall clock (NTP
/// correcting a wrong clock, a user setting the time) is told apart from time passing. Boot time
/// counts a suspend too, so a laptop waking up is not taken for a step.
///
/// Whoever keeps wall times to measure durations against later (a play in progress) shifts them
/// by each step `read()` reports, and so keeps its durations true and its dates on today's clock.
public struct WallClockWatch: Sendable {
    public struct Reading: Sendable, Equatable {
        /// Seconds since 1970, as the wall clock says.
        public var wall: Double
        /// Seconds since boot, suspends included.
        public var sinceBoot: Double
        public init(wall: Double, sinceBoot: Double) { self.wall = wall; self.sinceBoot = sinceBoot }
    }

    /// A disagreement smaller than this is NTP slewing or the two reads' own distance, not a step.
    public static let stepTolerance = 1.0

    private let read: @Sendable () -> Reading
    private var last: Reading?

    public init(reading read: @escaping @Sendable () -> Reading = WallClockWatch.system) { self.read = read }

    /// The wall time now, and how far the wall clock stepped since the last call (0 when it did not,
    /// and on the first call).
    public mutating func now() -> (wall: Double, step: Double) {
        let reading = read()
        defer { last = reading }
        guard let last else { return (reading.wall, 0) }
        let step = (reading.wall - last.wall) - (reading.sinceBoot - last.sinceBoot)
        return (reading.wall, abs(step) < WallClockWatch.stepTolerance ? 0 : step)
    }

    @Sendable public static func system() -> Reading {
        var boot = timespec()
        clock_gettime(CLOCK_BOOTTIME, &boot)
        let wall = Date().timeIntervalSince1970
        return Reading(wall: wall, sinceBoot: Double(boot.tv_sec) + Double(boot.tv_nsec) / 1e9)
    }
}
