import Foundation
import IngestCore
import Testing
@testable import Adapters

/// OwnTracks region transitions and waypoints in Recorder `.rec` files (fixtures/location-history/
/// make-fixtures.py writes them in the Recorder's line shape and the booklet's payloads).
struct OwnTracksRegionTests {
    /// Everything a `.rec` holds: points, region events, regions, and the unreadable line count.
    static func read(_ text: String) throws -> HistoryBatch {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("ot-\(UUID().uuidString).rec").path
        #expect(FileManager.default.createFile(atPath: path, contents: Data(text.utf8)))
        defer { try? FileManager.default.removeItem(atPath: path) }
        var parser = OwnTracksRecorder(BlockReader(try FileByteStream(path: path)))
        var batch = HistoryBatch(), all = HistoryBatch()
        while try parser.read(into: &batch) {
            all.points += batch.points; all.regionEvents += batch.regionEvents; all.regions += batch.regions
            batch.points = []; batch.regionEvents = []; batch.regions = []
        }
        all.points += batch.points; all.regionEvents += batch.regionEvents; all.regions += batch.regions
        all.bad = batch.bad; all.firstBad = batch.firstBad
        return all
    }

    static let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("fixtures/location-history/transitions.rec").path

    @Test func transitionsAndWaypointsAreReadWithTheirRegionIdentity() throws {
        let batch = try Self.read(String(contentsOfFile: Self.fixture, encoding: .utf8))
        #expect(batch.bad == 0)
        #expect(batch.points.count == 38, "only location messages are fixes")
        #expect(batch.regions.map(\.id.desc) == ["Home", "Cafe", "Office"])
        #expect(batch.regions.map(\.id.rid) == ["hm1", "cf2", "of3"])
        #expect(batch.regionEvents.map(\.enter) == [false, true, false, true, false, true, false])
        let cafe = try #require(batch.regionEvents.first { $0.enter })
        #expect(cafe.region == RegionID(rid: "cf2", created: batch.regions[1].id.created, desc: "Cafe"), "wtst is the waypoint's tst")
        #expect(cafe.time == 1_718_261_100 && cafe.latitude == 47.3769)
    }

    @Test func aTransitionWithoutATimeIsOneUnreadableLineAndABeaconWaypointNoRegion() throws {
        let text = """
        2024-06-01T08:00:00Z\tevent             \t{"_type":"transition","event":"enter","desc":"Home","wtst":1}
        2024-06-01T08:00:01Z\twaypoint          \t{"_type":"waypoint","desc":"Desk","tst":2,"uuid":"F00D","major":1,"minor":2}
        2024-06-01T08:00:02Z\tevent             \t{"_type":"transition","event":"enter","desc":"Home","wtst":1,"tst":1717228802,"acc":10}

        """
        let batch = try Self.read(text)
        #expect(batch.bad == 1 && batch.firstBad == 1, "the first line, named")
        #expect(batch.regions.isEmpty)
        #expect(batch.regionEvents.map(\.time) == [1_717_228_802])
        #expect(batch.regionEvents.first?.latitude == nil, "lat/lon are optional in a transition")
    }

    func event(_ time: Double, _ enter: Bool, rid: String? = "r1", created: Double? = 100, at east: Double = 0) -> RegionEvent {
        RegionEvent(time: time, enter: enter, latitude: 47, longitude: 8 + east, region: RegionID(rid: rid, created: created, desc: "Place"))
    }

    @Test func anEnterAndItsLeaveAreOneStatedVisitAtTheWaypointElseMidway() {
        let waypoint = Region(id: RegionID(rid: "r1", created: 100, desc: "Place"), latitude: 47.5, longitude: 8.5)
        let events = [event(1000, true, at: 0.001), event(5000, false, at: 0.003)]
        #expect(RegionStays.visits(events, regions: [waypoint]) == [StatedVisit(start: 1000, end: 5000, latitude: 47.5, longitude: 8.5)])
        let midway = RegionStays.visits(events, regions: [])
        #expect(midway.map(\.start) == [1000] && midway.map(\.end) == [5000])
        #expect(abs((midway.first?.longitude ?? 0) - 8.002) < 1e-9 && midway.first?.latitude == 47, "between where enter and leave fired")
        // No rid (before 2021): the transition's wtst finds the waypoint's tst.
        let old = [event(1000, true, rid: nil), event(5000, false, rid: nil)]
        let byCreation = Region(id: RegionID(rid: nil, created: 100, desc: "Other name"), latitude: 46, longitude: 7)
        #expect(RegionStays.visits(old, regions: [byCreation]).map(\.latitude) == [46])
    }

    @Test func anEventWithoutAPositionTakesTheNearestLocationFixWithinMaxGap() {
        var events = [RegionEvent(time: 1000, enter: true, latitude: nil, longitude: nil, region: RegionID(rid: "r1", created: nil, desc: nil)),
                      RegionEvent(time: 9000, enter: false, latitude: nil, longitude: nil, region: RegionID(rid: "r1", created: nil, desc: nil))]
        let points = [Fix(time: 400, latitude: 1, longitude: 1), Fix(time: 1100, latitude: 2, longitude: 2), Fix(time: 5000, latitude: 3, longitude: 3)]
        RegionStays.locate(&events, from: points, within: 900)
        #expect(events[0].latitude == 2 && events[0].longitude == 2, "1100 is nearer than 400")
        #expect(events[1].latitude == nil, "no fix within 15 min of 9000")
        #expect(RegionStays.visits(events, regions: []).map(\.latitude) == [2], "midway of the one position known")
    }

    @Test func unpairedEventsStateNothingAndARepeatedEnterKeepsTheFirst() {
        #expect(RegionStays.visits([event(1000, false)], regions: []).isEmpty, "a leave with no enter: the export began inside")
        #expect(RegionStays.visits([event(1000, true)], regions: []).isEmpty, "an enter with no leave yet")
        let repeated = [event(1000, true), event(1500, true), event(5000, false)]
        #expect(RegionStays.visits(repeated, regions: []).map(\.start) == [1000])
        // Two regions interleaved (nested regions: home inside the neighbourhood), in any order.
        let nested = [event(1000, true, rid: "area"), event(2000, true), event(3000, false), event(4000, false, rid: "area")]
        #expect(RegionStays.visits(nested.reversed(), regions: []).map(\.start) == [2000, 1000])
    }

    @Test func regionRecordsSurviveTheStoreAndDecodeUnderTheirDay() {
        var batch = HistoryBatch()
        batch.regionEvents = [event(1_717_228_800, true), event(1_717_232_400, false, rid: nil, created: nil)]
        batch.regions = [Region(id: RegionID(rid: "r1", created: 1_714_629_600, desc: "Home"), latitude: 47.3769, longitude: 8.5417)]
        let records = batch.takeRecords()
        #expect(Set(records.filter { $0.group == HistoryRecords.daysGroup }.map { String(decoding: $0.key, as: UTF8.self) })
                == ["2024-06-01", "2024-05-02"], "events under their day, the waypoint under the day it was made")
        let decoded = Dictionary(grouping: records.filter { $0.group != HistoryRecords.daysGroup }, by: \.group).mapValues(HistoryRecords.decode)
        #expect(decoded["d:2024-06-01"]?.regionEvents == [event(1_717_228_800, true), event(1_717_232_400, false, rid: nil, created: nil)])
        #expect(decoded["d:2024-05-02"]?.regions.map(\.id.desc) == ["Home"])
        #expect(batch.takeRecords().isEmpty, "taken once")
    }
}
