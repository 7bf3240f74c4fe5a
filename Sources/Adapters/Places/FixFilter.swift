/// Decides which fixes the visit detector may see. Each rejection has a reason, counted, so
/// the adapter can say in one warning line what it dropped and why.
struct FixFilter {
    enum Rejection: String, CaseIterable, Sendable {
        case notANumber = "no valid position"
        case tooInaccurate = "error estimate over MaxError"
        case implausibleTime = "time before 2015 or in the future (GPS week rollover?)"
        case notNewer = "time not after the previous fix"
        case jump = "moved faster than MaxSpeed since the previous fix"
    }

    var maxError: Double
    var maxSpeed: Double
    /// Rejected for `.jump` this many times in a row, the newest fix is taken as the truth: the
    /// receiver moved while the source was away, or the fix before the jumps was the bad one.
    var jumpStreakLimit = 5

    private(set) var last: Fix?
    private var jumpStreak = 0

    /// Fixes before this are dropped as implausible.
    var earliest: Double

    init(maxError: Double, maxSpeed: Double, last: Fix? = nil, earliest: Double = FixFilter.earliest) {
        self.maxError = maxError; self.maxSpeed = maxSpeed; self.last = last; self.earliest = earliest
    }

    /// 2015-01-01: the oldest time a current receiver reports unless its week number rolled over.
    static let earliest = 1_420_070_400.0
    /// 1995-01-01: older than any consumer location history, for exports, which are old by nature.
    static let earliestHistory = 788_918_400.0

    /// nil when `fix` is accepted (and becomes the reference for the next one).
    mutating func check(_ fix: Fix, now: Double) -> Rejection? {
        guard fix.latitude.isFinite, fix.longitude.isFinite, abs(fix.latitude) <= 90, abs(fix.longitude) <= 180,
              !(fix.latitude == 0 && fix.longitude == 0) else { return .notANumber }
        guard fix.time.isFinite, fix.time >= earliest, fix.time <= now + 86_400 else { return .implausibleTime }
        if let error = fix.error, Double(error) > maxError { return .tooInaccurate }
        if let last {
            guard fix.time > last.time else { return .notNewer }
            let speed = Geo.distance(last, fix) / (fix.time - last.time)
            if speed > maxSpeed {
                jumpStreak += 1
                guard jumpStreak >= jumpStreakLimit else { return .jump }
            }
        }
        jumpStreak = 0
        last = fix
        return nil
    }
}
