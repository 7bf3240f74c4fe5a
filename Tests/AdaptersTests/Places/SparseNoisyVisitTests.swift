import Foundation
import Testing
@testable import Adapters

/// The detector on sparse, noisy fixes, as history exports and GeoClue give them.
struct SparseNoisyVisitTests {
    func run(_ fixes: [Fix], _ settings: VisitDetector.Settings = .init()) -> (visits: [Visit], trips: [Trip]) {
        var detector = VisitDetector(settings: settings)
        var filter = FixFilter(maxError: 100, maxSpeed: 300)
        var events = fixes.filter { filter.check($0, now: $0.time) == nil }.flatMap { detector.add($0) }
        events += detector.closeIfStale(now: .infinity)
        let visits = events.compactMap { if case .closed(let v) = $0 { v } else { nil } }
        let trips = events.compactMap { if case .trip(let t) = $0 { t } else { nil } }
        return (visits, trips)
    }

    @Test(arguments: 1...20 as ClosedRange<UInt64>)
    func everyScriptedStayIsOneVisitAndEveryPairOneTrip(seed: UInt64) {
        let day = NoisyDay(seed: seed)
        let (visits, trips) = run(day.fixes)
        #expect(visits.count == day.stays.count, "seed \(seed): \(visits.count) visits for \(day.stays.count) stays")
        #expect(trips.count == visits.count - 1, "one trip per pair of consecutive visits (the day starts at a stay)")
        for (visit, stay) in zip(visits, day.stays) {
            // A stay reaches out to the radius: up to radius / walking speed plus one fix interval early or late.
            #expect(abs(visit.arrival - stay.arrival) < 135, "seed \(seed): arrival off by \(visit.arrival - stay.arrival) s")
            #expect(abs(visit.departure! - stay.departure) < 135, "seed \(seed): departure off by \(visit.departure! - stay.departure) s")
            #expect(Geo.distance(visit.latitude, visit.longitude, stay.latitude, stay.longitude) < 10)
            #expect(visit.accuracy > 2 && visit.accuracy < 15, "68 % of σ = 4 m noise is about 6 m, not \(visit.accuracy)")
        }
        #expect(trips.map(\.mode) == day.moves, "seed \(seed)")
    }

    func still(_ from: Double, _ to: Double, every step: Double = 30, lat: Double = 52.5, lon: Double = 13.4) -> [Fix] {
        stride(from: from, to: to, by: step).map { Fix(time: $0, latitude: lat, longitude: lon) }
    }

    @Test func aStrayFixInAStayIsNoiseAndATenMinuteHoleIsNoEnd() {
        let t0 = NoisyDay.start
        var fixes = still(t0, t0 + 1200)
        fixes.append(Fix(time: t0 + 1215, latitude: 52.5015, longitude: 13.4))           // 167 m out, once
        fixes += still(t0 + 1230, t0 + 1800) + still(t0 + 2400, t0 + 3600)               // 10 min without fixes
        let (visits, _) = run(fixes)
        #expect(visits.map(\.arrival) == [t0])
        #expect(visits.map(\.departure) == [t0 + 3570])
        #expect(visits.map(\.fixes) == [fixes.count], "every distinct fix of the stay counts, the stray one too")
    }

    @Test func withoutABridgeAHoleOverMaxGapSplitsTheStayWithOneTripBetween() {
        let t0 = NoisyDay.start
        let (visits, trips) = run(still(t0, t0 + 1200) + still(t0 + 2200, t0 + 3600), .init(bridgeGap: 0))
        #expect(visits.map(\.arrival) == [t0, t0 + 2200])
        #expect(trips.count == 1)
    }

    @Test func aOneMinuteStopOnAWalkIsNoVisit() {
        let t0 = NoisyDay.start
        var fixes: [Fix] = []
        for i in 0..<40 { fixes.append(Fix(time: t0 + Double(i) * 30, latitude: 52.5 + Double(i) * 42 / 111_320, longitude: 13.4)) }
        let stop = fixes.last!
        fixes += (1...2).map { Fix(time: stop.time + Double($0) * 30, latitude: stop.latitude, longitude: stop.longitude) }
        for i in 1...40 { fixes.append(Fix(time: stop.time + 60 + Double(i) * 30, latitude: stop.latitude + Double(i) * 42 / 111_320, longitude: 13.4)) }
        #expect(run(fixes).visits.isEmpty)
    }
}
