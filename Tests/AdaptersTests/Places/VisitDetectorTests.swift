import Foundation
import Testing
@testable import Adapters

struct VisitDetectorTests {
    func run(_ fixes: some Sequence<Fix>, _ detector: inout VisitDetector) -> [VisitDetector.Event] {
        fixes.flatMap { detector.add($0) }
    }

    func closed(_ events: [VisitDetector.Event]) -> [Visit] { events.compactMap { if case .closed(let v) = $0 { v } else { nil } } }
    func opened(_ events: [VisitDetector.Event]) -> [Visit] { events.compactMap { if case .opened(let v) = $0 { v } else { nil } } }
    func trips(_ events: [VisitDetector.Event]) -> [Trip] { events.compactMap { if case .trip(let t) = $0 { t } else { nil } } }

    @Test func theScriptedDayGivesItsThreeStaysAndTwoTrips() {
        var detector = VisitDetector(settings: .init())
        let events = run(ScriptedDay.fixes(), &detector)
        let t0 = ScriptedDay.start
        // Stays per the script: [arrival, departure] in seconds after t0, and the place.
        let expected: [(arrive: Double, depart: Double?, place: (lat: Double, lon: Double))] = [
            (0, 1800, ScriptedDay.place(after: 0)), (2700, 5100, ScriptedDay.place(after: 2)), (6300, nil, ScriptedDay.place(after: 4)),
        ]
        let opens = opened(events), closes = closed(events)
        #expect(opens.count == 3)
        #expect(closes.count == 2)
        #expect(detector.isVisitOpen, "the office stay runs to the end of the log")
        for (i, visit) in opens.enumerated() where i < expected.count {
            let e = expected[i]
            // Stay points reach up to radius / speed before arriving and after leaving (≤ 72 s walking).
            #expect(abs(visit.arrival - (t0 + e.arrive)) <= 75, "visit \(i) arrival \(visit.arrival - t0)")
            #expect(Geo.distance(visit.latitude, visit.longitude, e.place.lat, e.place.lon) < 10, "visit \(i) position")
            #expect(visit.departure == nil)
        }
        for (i, visit) in closes.enumerated() {
            #expect(visit.key == opens[i].key, "the closing visit keeps the key it opened with")
            #expect(abs(visit.departure! - (t0 + expected[i].depart!)) <= 75, "visit \(i) departure \(visit.departure! - t0)")
            #expect(visit.accuracy > 1 && visit.accuracy < 6, "68 % of ±4 m noise: \(visit.accuracy)")
            #expect(abs(visit.fixes - Int(expected[i].depart! - expected[i].arrive)) <= 150)
        }
        let legs = trips(events)
        #expect(legs.map(\.mode) == [.walking, .driving])
        if legs.count == 2 {
            // The scripted legs less the radius at each end (a stay reaches 100 m out).
            #expect(abs(legs[0].distance - 1060) < 120, "walk \(legs[0].distance) m")
            #expect(abs(legs[1].distance - 14_200) < 300, "drive \(legs[1].distance) m")
            #expect(abs(legs[0].start.time - (t0 + 1800)) <= 75 && abs(legs[0].end.time - (t0 + 2700)) <= 75)
        }
    }

    @Test func modesFromReceiverSpeedsOrFromPositionsAgree() {
        var withSpeed = VisitDetector(settings: .init()), withoutSpeed = VisitDetector(settings: .init())
        let a = trips(run(ScriptedDay.fixes(reportSpeed: true), &withSpeed)).map(\.mode)
        let b = trips(run(ScriptedDay.fixes(reportSpeed: false), &withoutSpeed)).map(\.mode)
        #expect(a == b && a == [.walking, .driving])
        #expect(TripBuilder.mode([3, 3.5, 4, 3.8]) == .running)
        #expect(TripBuilder.mode([5, 6, 7, 6]) == .cycling)
        #expect(TripBuilder.mode([1]) == .unknown)
    }

    @Test func aRestartReplayingFromTheResumePointGivesTheSameItems() {
        let fixes = ScriptedDay.fixes()
        var whole = VisitDetector(settings: .init())
        let all = run(fixes, &whole)
        // Stop in the middle of the café stay, then resume from what a restart would keep;
        // and again in the middle of the drive.
        for cut in [4000, 5700] {
        var first = VisitDetector(settings: .init())
        let before = run(fixes[..<cut], &first)
        let resume = first.resumePoint!
        #expect(resume.startsTrip == (cut == 5700), "open café: replay from its arrival; driving: from the café departure")
        let from = fixes.firstIndex { $0.time >= resume.time }!
        var second = VisitDetector(settings: .init(), resumingTripFrom: resume.startsTrip ? fixes[from] : nil)
        let after = run(fixes[(resume.startsTrip ? from + 1 : from)...], &second)
        // Events before the cut plus those after the restart (the re-opened café is a duplicate).
        let keys = Set((before + after).map(\.description))
        #expect(keys == Set(all.map(\.description)))
        }
    }

    @Test func aGapEndsAStayAndAStaleVisitClosesOnTheWallClock() {
        var d = VisitDetector(settings: .init())
        let t0 = ScriptedDay.start
        let stay = (0..<600).map { Fix(time: t0 + Double($0), latitude: 52.5, longitude: 13.4) }
        #expect(opened(run(stay, &d)).count == 1)
        #expect(d.closeIfStale(now: t0 + 599 + 900).isEmpty, "not yet more than the gap")
        let stale = closed(d.closeIfStale(now: t0 + 599 + 901))
        #expect(stale.map(\.departure) == [t0 + 599])
        // Without a bridge (BridgeGap=0), the same place after a 20 min gap is a new visit.
        var g = VisitDetector(settings: .init(bridgeGap: 0))
        _ = run(stay, &g)
        let later = (0..<600).map { Fix(time: t0 + 1800 + Double($0), latitude: 52.5, longitude: 13.4) }
        let events = run(later, &g)
        #expect(closed(events).map(\.departure) == [t0 + 599])
        #expect(opened(events).map(\.arrival) == [t0 + 1800])
    }

    @Test func theFilterDropsWhatTheIssueNames() {
        var f = FixFilter(maxError: 50, maxSpeed: 100)
        let now = ScriptedDay.start + 1000
        let good = Fix(time: ScriptedDay.start, latitude: 52.5, longitude: 13.4, error: 5)
        #expect(f.check(good, now: now) == nil)
        #expect(f.check(Fix(time: good.time + 1, latitude: .nan, longitude: 13.4), now: now) == .notANumber)
        #expect(f.check(Fix(time: 315_964_800 + 1, latitude: 52.5, longitude: 13.4), now: now) == .implausibleTime, "1980")
        #expect(f.check(Fix(time: now + 3 * 86_400, latitude: 52.5, longitude: 13.4), now: now) == .implausibleTime, "the future")
        #expect(f.check(Fix(time: good.time + 1, latitude: 52.5, longitude: 13.4, error: 80), now: now) == .tooInaccurate)
        #expect(f.check(Fix(time: good.time, latitude: 52.5, longitude: 13.4), now: now) == .notNewer)
        #expect(f.check(Fix(time: good.time + 1, latitude: 57.0, longitude: 13.4), now: now) == .jump, "500 km in one second")
        #expect(f.check(Fix(time: good.time + 2, latitude: 52.5001, longitude: 13.4), now: now) == nil, "back on track")
    }

    @Test func aLaterReportOfTheSameEpochCompletesTheFix() {
        let gga = Fix(time: 10, latitude: 52.5, longitude: 13.4, altitude: 34, error: 17, speed: 7.4)   // gpsd's own speed estimate
        let rmc = Fix(time: 10, latitude: 52.5, longitude: 13.4, speed: 1.42)                           // the receiver's
        #expect(gga.refined(by: rmc) == Fix(time: 10, latitude: 52.5, longitude: 13.4, altitude: 34, error: 17, speed: 1.42))
    }

    @Test func fixesSurviveTheJournalPacking() {
        let fixes = [Fix(time: 1.5, latitude: -33.9, longitude: 151.2, altitude: 12.5, error: 3, speed: nil),
                     Fix(time: 2.5, latitude: 0.1, longitude: -0.1)]
        var bytes: [UInt8] = []
        fixes.forEach { $0.pack(into: &bytes) }
        #expect(Fix.unpack(bytes) == fixes)
        #expect(Fix.unpack(bytes + [1, 2, 3]) == fixes, "a torn tail is ignored")
    }
}

extension VisitDetector.Event: CustomStringConvertible {
    public var description: String {
        switch self {
        case .opened(let v): "open \(v.key) \(v.arrival) \(v.fixes)"
        case .closed(let v): "close \(v.key) \(v.departure ?? 0) \(v.fixes)"
        case .trip(let t): "trip \(t.key) \(t.distance) \(t.mode)"
        }
    }
}
