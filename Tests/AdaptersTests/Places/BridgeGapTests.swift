import Foundation
import IngestCore
import Testing
@testable import Adapters

/// Quiet phones: a stay goes on across a silence up to `BridgeGap` when the first fix after it is
/// back within `Radius`; a silence that ends elsewhere, or lasts longer, ends it as `MaxGap` does.
struct BridgeGapTests {
    static let t0 = 1_717_196_400.0                  // 2024-05-31T23:00:00Z
    static let home = (lat: 52.520000, lon: 13.405000)
    static let cafe = (lat: 52.520000, lon: 13.422700)  // 1.2 km east

    /// Fixes at a place from `from` to `to` (seconds after t0), one every `every` seconds, with
    /// ±4 m of deterministic noise.
    func still(_ place: (lat: Double, lon: Double), _ from: Double, _ to: Double, every: Double = 30) -> [Fix] {
        stride(from: from, to: to, by: every).enumerated().map { i, s in
            let wobble = Double(i % 5 - 2) * 2 / 111_320
            return Fix(time: BridgeGapTests.t0 + s, latitude: place.lat + wobble, longitude: place.lon - wobble)
        }
    }

    /// A walk east at 1.4 m/s from `from` for `seconds`, a fix a second.
    func walk(from: Double, seconds: Int, start: (lat: Double, lon: Double) = home) -> [Fix] {
        (0..<seconds).map { i in
            Fix(time: BridgeGapTests.t0 + from + Double(i), latitude: start.lat,
                longitude: start.lon + 1.4 * Double(i) / (111_320 * cos(start.lat * .pi / 180)), speed: 1.4)
        }
    }

    func run(_ fixes: [Fix], _ settings: VisitDetector.Settings = .init()) -> [VisitDetector.Event] {
        var detector = VisitDetector(settings: settings)
        return fixes.flatMap { detector.add($0) }
    }

    func closed(_ events: [VisitDetector.Event]) -> [Visit] { events.compactMap { if case .closed(let v) = $0 { v } else { nil } } }
    func opened(_ events: [VisitDetector.Event]) -> [Visit] { events.compactMap { if case .opened(let v) = $0 { v } else { nil } } }
    func trips(_ events: [VisitDetector.Event]) -> [Trip] { events.compactMap { if case .trip(let t) = $0 { t } else { nil } } }

    @Test func aNightWithAFixEveryFifteenMinutesOrSoIsOneVisit() {
        // 23:00 to 07:00, the phone reporting every 15 min give or take 40 s, as Records.json has it.
        var night: [Fix] = [], s = 0.0, i = 0
        while s < 8 * 3600 {
            night += still(BridgeGapTests.home, s, s + 1)
            s += 900 + Double(i % 3 - 1) * 40; i += 1
        }
        let events = run(night + walk(from: 8 * 3600, seconds: 900))
        #expect(closed(events).map(\.arrival) == [BridgeGapTests.t0])
        let departure = closed(events).first?.departure ?? 0
        #expect(departure - (BridgeGapTests.t0 + 8 * 3600) >= 71 && departure - (BridgeGapTests.t0 + 8 * 3600) <= 150,
                "the last fix within 100 m of the stay's centre, early in the walk")
        #expect(Set(opened(events).map(\.key)).count == 1, "re-sent open across each bridged silence, under one key")
        #expect(trips(events).isEmpty, "no trip between two halves of one stay")
    }

    @Test func aTenHourDeadBatteryAtHomeIsOneVisitResentOpenOnce() {
        let evening = still(BridgeGapTests.home, 0, 1800), morning = still(BridgeGapTests.home, 11 * 3600, 11 * 3600 + 1800)
        let events = run(evening + morning)
        #expect(opened(events).map(\.arrival) == [BridgeGapTests.t0, BridgeGapTests.t0], "opened, then sent again as open after the silence")
        #expect(opened(events).last?.fixes == 61, "the evening's 60 fixes and the first of the morning")
        #expect(closed(events).isEmpty && trips(events).isEmpty)
    }

    @Test func oneFixOnArrivalThenDarkThenHomeIsAVisitFromThatFix() {
        // Come home, record one fix, go dark for four hours: the evening is not lost.
        let events = run(still(BridgeGapTests.home, 0, 1) + still(BridgeGapTests.home, 4 * 3600, 4 * 3600 + 600))
        #expect(opened(events).first?.arrival == BridgeGapTests.t0)
    }

    @Test func aSilenceThatEndsElsewhereEndsTheStayAtItsLastFixBeforeIt() {
        let events = run(still(BridgeGapTests.home, 0, 1800) + still(BridgeGapTests.cafe, 3 * 3600, 3 * 3600 + 1800))
        #expect(closed(events).map(\.departure) == [BridgeGapTests.t0 + 1770])
        #expect(opened(events).map(\.arrival) == [BridgeGapTests.t0, BridgeGapTests.t0 + 3 * 3600])
        #expect(trips(events).map(\.start.time) == [BridgeGapTests.t0 + 1770], "the trip runs over the silence, from the last fix at home")
    }

    @Test func aSilenceLongerThanBridgeGapEndsTheStayEvenAtTheSamePlace() {
        let events = run(still(BridgeGapTests.home, 0, 1800) + still(BridgeGapTests.home, 25 * 3600, 25 * 3600 + 1800))
        #expect(closed(events).map(\.departure) == [BridgeGapTests.t0 + 1770])
        #expect(opened(events).map(\.arrival) == [BridgeGapTests.t0, BridgeGapTests.t0 + 25 * 3600])
        let short = run(still(BridgeGapTests.home, 0, 1800) + still(BridgeGapTests.home, 3 * 3600, 3 * 3600 + 1800), .init(bridgeGap: 3600))
        #expect(closed(short).count == 1, "BridgeGap=1h: a 2.5 h silence is too long")
    }

    @Test func aSilenceOverMaxGapThatEndsWithinRadiusIsBridgedAndWithoutABridgeIsNot() {
        let fixes = still(BridgeGapTests.home, 0, 1800) + still(BridgeGapTests.home, 1800 + 1200, 1800 + 2400)
        #expect(closed(run(fixes)).isEmpty, "20 min without fixes, back within 100 m: the stay goes on")
        #expect(closed(run(fixes, .init(bridgeGap: 0))).map(\.departure) == [BridgeGapTests.t0 + 1770], "BridgeGap=0: MaxGap ends it")
        // Within MaxGap, a fix elsewhere with the next one back home is one stray fix, as before.
        var stray = still(BridgeGapTests.home, 0, 1800)
        stray.append(Fix(time: BridgeGapTests.t0 + 1830, latitude: BridgeGapTests.cafe.lat, longitude: BridgeGapTests.cafe.lon))
        stray += still(BridgeGapTests.home, 1860, 2400)
        #expect(closed(run(stray)).isEmpty)
    }

    @Test func aStaleCloseByTheWallClockLeavesTheStayOpenForABridge() {
        var detector = VisitDetector(settings: .init())
        _ = still(BridgeGapTests.home, 0, 1800).flatMap { detector.add($0) }
        let stale = closed(detector.closeIfStale(now: BridgeGapTests.t0 + 3 * 3600))
        #expect(stale.map(\.departure) == [BridgeGapTests.t0 + 1770])
        let morning = still(BridgeGapTests.home, 9 * 3600, 9 * 3600 + 600).flatMap { detector.add($0) }
        #expect(opened(morning).map(\.key) == stale.map(\.key), "sent again as open under its key: the stay went on")
        #expect(trips(morning).isEmpty && closed(morning).isEmpty)
    }

    @Test func aTimerRunSendsTheStaleCloseOnceAndARestoreBridgesTheSilence() async throws {
        let sink = CollectingSink()
        var (tracker, _) = try await PlaceTracker.restore(from: Anchor(), journal: { try JournalEntry.read(sink.records, since: $0) }, settings: .init())
        let evening = still(BridgeGapTests.home, 0, 1800)
        try await tracker.commit(evening.flatMap { tracker.add($0, now: $0.time) }, into: sink)
        // Two timer runs in the night: the first sends the close, the second nothing new.
        for expected in [1, 0] {
            let snapshot = sink.next()
            var (run, _) = try await PlaceTracker.restore(from: snapshot.anchor, journal: { try JournalEntry.read(snapshot.records, since: $0) }, settings: .init())
            let items = run.closeIfStale(now: BridgeGapTests.t0 + 4 * 3600)
            #expect(items.count == expected)
            try await run.commit(items, into: sink)
        }
        // The machine is on again in the morning, at home: the restored tracker carries the stay on.
        let snapshot = sink.next()
        var (morning, _) = try await PlaceTracker.restore(from: snapshot.anchor, journal: { try JournalEntry.read(snapshot.records, since: $0) }, settings: .init())
        let items = still(BridgeGapTests.home, 10 * 3600, 10 * 3600 + 600).flatMap { morning.add($0, now: $0.time) }
        #expect(items.map(\.endpoint) == [.location], "the visit sent again as open; no trip")
        #expect(items.first?.fields["departure"] == .null)
        #expect(items.first?.key == sink.items.first { $0.endpoint == .location }?.key)
    }
}
