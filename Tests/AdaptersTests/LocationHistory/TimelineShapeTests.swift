import Foundation
import IngestCore
import Testing
@testable import Adapters

/// The newer and older export shapes (fixtures/location-history/make-fixtures.py says where each
/// was read), and which device's points count when an export holds several.
struct TimelineShapeTests {
    static func read(_ name: String) throws -> (HistoryFormat?, HistoryBatch, FileReadError?) {
        try HistoryParserTests.read(FileByteStream(path: HistoryParserTests.fixture(name)))
    }

    @Test(arguments: [("location-history.json", HistoryFormat.timelineArray, 150, 4, 2), ("Timeline-2025.json", .timeline, 330, 3, 2),
                      ("Timeline Edits.json", .timelineEdits, 300, 0, 0), ("2014_MARCH.json", .semantic, 0, 3, 2), ("nozone.gpx", .gpx, 600, 0, 0),
                      ("Records-devices.json", .records, 2160, 0, 0)])
    func eachShapeIsKnownByItsContentAndReadWhole(name: String, format: HistoryFormat, points: Int, visits: Int, activities: Int) throws {
        let (found, batch, failure) = try TimelineShapeTests.read(name)
        #expect(found == format)
        #expect(failure == nil && batch.bad == 0)
        #expect(batch.points.count == points && batch.visits.count == visits && batch.activities.count == activities,
                "\(batch.points.count) \(batch.visits.count) \(batch.activities.count)")
    }

    @Test func theIPhonesArrayPlacesPathPointsByMinutesFromTheirWindow() throws {
        let batch = try TimelineShapeTests.read("location-history.json").1
        // 2024-06-08 06:00 UTC at home; the path's window starts 06:00, points every 2 minutes.
        let first = try #require(batch.points.first)
        #expect(first.time == 1_717_826_400 && abs(first.latitude - 47.3769) < 0.0002 && abs(first.longitude - 8.5417) < 0.0002)
        #expect(zip(batch.points, batch.points.dropFirst()).allSatisfy { $1.time - $0.time == 120 })
        #expect(batch.activities.map(\.mode) == [.walking, .driving], "walking, in passenger vehicle")
        #expect(batch.visits.map(\.start) == [1_717_826_400, 1_717_826_400, 1_717_830_900, 1_717_834_800], "local times with +02:00")
        #expect(batch.visits[0].latitude == 47.3773 && batch.visits[1].latitude == 47.3769, "the wider place, then the visit inside it")
    }

    @Test func aCutIPhoneExportKeepsTheSegmentsBeforeTheCut() throws {
        let whole = Array(try Data(contentsOf: URL(fileURLWithPath: HistoryParserTests.fixture("location-history.json"))))
        let (format, batch, failure) = try HistoryParserTests.read(bytes: Array(whole.prefix(whole.count / 2)))
        #expect(format == .timelineArray && failure?.description.hasPrefix("cut off at line") == true)
        #expect(batch.visits.count == 4 && batch.activities.count == 2 && (1..<150).contains(batch.points.count), "\(batch.points.count)")
        let bad = try HistoryParserTests.read(bytes: Array(#"[{"startTime": "x", "endTime": "y", "visit": {}}, {"startTime" : "2024-06-08T08:00:00.000+02:00", "endTime" : "2024-06-08T09:00:00.000+02:00", "visit" : {"topCandidate" : {"placeLocation" : "geo:47.3769,8.5417"}}}]"#.utf8))
        #expect(bad.1.visits.count == 1 && bad.1.bad == 1, "a broken segment counts and the next is read")
    }

    @Test func androidsNewerFileTimesPathPointsByNumericOffsetsAfterItsRawSignals() throws {
        let batch = try TimelineShapeTests.read("Timeline-2025.json").1
        let times = batch.points.map(\.time)
        #expect(times.filter { $0.truncatingRemainder(dividingBy: 600) == 0 }.count == 60, "30 positions and 30 path points on the 10 minutes")
        #expect(Set(times).count == 300 && times.allSatisfy { $0.truncatingRemainder(dividingBy: 60) == 0 })
        #expect(batch.points.compactMap(\.error) == Array(repeating: 12, count: 30), "accuracyMeters of the positions")
    }

    @Test func timelineEditsGiveTheirPositionsAsOneDevicesAndNothingElse() throws {
        var parser = HistoryFormat.timelineEdits.parser(BlockReader(try FileByteStream(path: HistoryParserTests.fixture("Timeline Edits.json"))))
        var batch = HistoryBatch()
        while try parser.read(into: &batch) {}
        #expect(batch.points.isEmpty && batch.devicePoints.keys.sorted() == [799_010_011])
        let fixes = batch.devicePoints[799_010_011] ?? []
        #expect(fixes.count == 300 && fixes.allSatisfy { $0.error == 9 && $0.altitude == 408 }, "accuracyMm 9000 is 9 m")
        #expect(batch.read == 341 && batch.bad == 0, "Wi-Fi scans, activity records and the place aggregate are read and give no fix")
    }

    @Test func takeoutSettingsNameTheDevices() throws {
        var reader = BlockReader(try FileByteStream(path: HistoryParserTests.fixture("Settings.json")))
        #expect(HistoryFormat.detect(reader.head(64 * 1024)) == .settings)
        var parser = HistoryFormat.settings.parser(reader), batch = HistoryBatch()
        while try parser.read(into: &batch) {}
        #expect(batch.deviceNames == [1_234_567_890: "Google Pixel 7", -1_935_307_820: "Samsung Galaxy Tab S6 Lite"] && batch.bad == 0)
        #expect(batch.takeRecords().filter { $0.group == HistoryRecords.devicesGroup }.count == 2)
    }

    @Test func oldSemanticFilesGiveEveryTripItsMode() throws {
        #expect(try TimelineShapeTests.read("2014_MARCH.json").1.activities.map(\.mode) == [.walking, .driving],
                "waypointPath.travelMode WALK; the first of equally probable activities")
        let segment = JSONValue.parse(Array(#"{"activities": [{"activityType": "WALKING", "probability": 10}, {"activityType": "CYCLING", "probability": 80}]}"#.utf8))!
        #expect(SemanticHistory.mode(segment) == .cycling)
        let typed = JSONValue.parse(Array(#"{"activityType": "IN_BUS", "waypointPath": {"travelMode": "WALK"}}"#.utf8))!
        #expect(SemanticHistory.mode(typed) == .driving, "activityType first, as newer files give it")
    }

    @Test func gpxTimesWithoutAZoneAreUTC() throws {
        let (_, batch, _) = try TimelineShapeTests.read("nozone.gpx")
        #expect(batch.points.first?.time == 1_367_658_000, "2013-05-04T09:00:00 is UTC")
        #expect(HistoryTime.parse("2013-05-04T09:00:00".utf8, zonelessIsUTC: true) == 1_367_658_000)
        #expect(HistoryTime.parse("2013-05-04T09:00:00".utf8) == nil, "other formats still want a zone")
        #expect(HistoryTime.latLng("geo:47.376900,8.541700")! == (47.3769, 8.5417))
    }

    @Test func onlyATimelineArrayIsTakenForOne() {
        func detect(_ text: String) -> HistoryFormat? { HistoryFormat.detect(ArraySlice(text.utf8)) }
        #expect(detect(#"[{"endTime" : "2023-08-27T17:04:26.999-05:00", "startTime" : "2023-08-27T15:48:56.000-05:00", "visit" : {}}]"#) == .timelineArray)
        #expect(detect(#"[{"endTime": "2021-01-01 10:00", "artistName": "A", "trackName": "B", "msPlayed": 1000}]"#) == nil, "Spotify's history")
        #expect(detect("[1, 2, 3]") == nil)
    }

    // MARK: - Devices

    static let zurich = ZoneRules(named: "Europe/Zurich")!
    static func at(_ hour: Double) -> Double { 1_718_834_400 + hour * 3600 }      // 2024-06-20 00:00 in Zurich
    static func fixes(_ hours: ClosedRange<Double>, every minutes: Double, latitude: Double) -> [Fix] {
        stride(from: hours.lowerBound * 60, through: hours.upperBound * 60, by: minutes).map { Fix(time: at($0 / 60), latitude: latitude, longitude: 8.54) }
    }

    @Test func theDeviceWithTheMostPointsLeadsEachLocalDayAndTheOthersFillOnlyItsEmptyHours() {
        let picker = DevicePicker(zone: TimelineShapeTests.zurich)
        // The phone from 00:00 to 09:59 and 11:00 to 23:59 local; the tablet all day, less often.
        let phone = TimelineShapeTests.fixes(0...9.99, every: 1, latitude: 47.37) + TimelineShapeTests.fixes(11...23.99, every: 1, latitude: 47.37)
        let tablet = TimelineShapeTests.fixes(0...23.99, every: 5, latitude: 47.46)
        let devices: [Int64: [Fix]] = [1: phone, 2: tablet]
        var hours = DevicePicker.HourCounts()
        picker.count(devices, into: &hours)
        let chosen = picker.choose(devices, hours: hours)
        #expect(chosen.filter { $0.latitude == 47.37 }.count == phone.count)
        #expect(chosen.filter { $0.latitude == 47.46 }.map(\.time) == tablet.filter { $0.time >= TimelineShapeTests.at(10) && $0.time < TimelineShapeTests.at(11) }.map(\.time),
                "the tablet only in the local hour 10 the phone has no point in")
        let picked = DevicePicker(picked: [2], zone: TimelineShapeTests.zurich)
        var pickedHours = DevicePicker.HourCounts()
        picked.count(devices, into: &pickedHours)
        #expect(picked.choose(devices, hours: pickedHours).count == tablet.count, "DeviceTag=2: the tablet alone")
        #expect(DevicePicker.most([5: 10, 3: 10, 9: 2]) == 3, "a tie goes to the smaller tag")
    }

    @Test func devicePointsArePackedWithTheirTagAndReadBackApart() {
        var batch = HistoryBatch()
        batch.add(Fix(time: 1_718_834_400, latitude: 47.37, longitude: 8.54), device: -1_935_307_820)
        batch.add(Fix(time: 1_718_834_460, latitude: 47.46, longitude: 8.54), device: 1_234_567_890)
        batch.add(Fix(time: 1_718_834_520, latitude: 47.40, longitude: 8.54), device: nil)
        let day = HistoryRecords.decode(batch.takeRecords().filter { $0.group.hasPrefix("d:") })
        #expect(day.points.map(\.latitude) == [47.40])
        #expect(day.devices.mapValues { $0.map(\.latitude) } == [-1_935_307_820: [47.37], 1_234_567_890: [47.46]])
    }
}
