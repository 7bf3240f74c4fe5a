@testable import Adapters

/// gpsd's reports are parsed by libgps (C, not instrumented here); what the project parses is
/// the fix as the journal stores it. The input is read as journal chunks, and the fixes go
/// through the filter and the visit detector the way `PlaceTracker.add` sends gpsd's fixes,
/// with a `BridgeGap` the input's length picks (off, 1 h, the default 24 h).
enum GPSDFixesHarness {
    /// A fixed "now" (2026-12-01), so the same input is filtered the same way on every run.
    static let now = 1_795_000_000.0

    static func run(_ bytes: [UInt8]) {
        var filter = FixFilter(maxError: 100, maxSpeed: 300)   // the adapter's defaults
        var detector = VisitDetector(settings: VisitDetector.Settings(bridgeGap: [0, 3600, 86_400][bytes.count % 3]))
        for fix in Fix.unpack(bytes) where filter.check(fix, now: now) == nil {
            _ = detector.add(fix).map(PlaceItems.item)
        }
        _ = detector.closeIfStale(now: now).map(PlaceItems.item)
    }
}
