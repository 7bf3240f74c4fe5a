import Foundation
import Testing
@testable import Adapters

/// The parsers against the generated fixtures (fixtures/location-history/make-fixtures.py: 600
/// points a day, every 30 s) and hand-written edge cases.
struct HistoryParserTests {
    static func fixture(_ name: String) -> String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("fixtures/location-history/" + name).path
    }

    /// Everything `bytes` holds, read as its detected format, and the error that stopped it.
    static func read(_ stream: any ByteStream) throws -> (HistoryFormat?, HistoryBatch, FileReadError?) {
        var reader = BlockReader(stream)
        guard let format = HistoryFormat.detect(reader.head(64 * 1024)) else { return (nil, HistoryBatch(), nil) }
        var parser = format.parser(reader), batch = HistoryBatch(), all = HistoryBatch()
        var failure: FileReadError?
        var more = true
        while more {
            do throws(FileReadError) { more = try parser.read(into: &batch) } catch { failure = error; more = false }
            all.points += batch.points + batch.devicePoints.keys.sorted().flatMap { batch.devicePoints[$0] ?? [] }
            all.visits += batch.visits; all.activities += batch.activities
            _ = batch.takeRecords()
        }
        all.read = batch.read; all.bad = batch.bad; all.firstBad = batch.firstBad
        return (format, all, failure)
    }

    static func read(bytes: [UInt8]) throws -> (HistoryFormat?, HistoryBatch, FileReadError?) {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("lh-\(UUID().uuidString)").path
        #expect(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
        defer { try? FileManager.default.removeItem(atPath: path) }
        return try read(FileByteStream(path: path))
    }

    @Test(arguments: [("Records.json", HistoryFormat.records, 600, 0, 0), ("track.gpx", .gpx, 600, 0, 0), ("old.gpx", .gpx, 600, 0, 0),
                      ("2024_JUNE.json", .semantic, 0, 3, 2), ("Timeline.json", .timeline, 600, 6, 2),
                      ("2024-06.rec", .owntracks, 600, 0, 0), ("dawarich.json", .geojson, 600, 0, 0), ("gpslogger.geojson", .geojson, 600, 0, 0)])
    func eachFixtureIsKnownByItsContentAndReadWhole(name: String, format: HistoryFormat, points: Int, visits: Int, activities: Int) throws {
        let (found, batch, failure) = try HistoryParserTests.read(FileByteStream(path: HistoryParserTests.fixture(name)))
        #expect(found == format)
        #expect(failure == nil)
        #expect(batch.points.count == points && batch.visits.count == visits && batch.activities.count == activities)
        #expect(batch.bad == 0)
        // Every day starts 2024-06-0N 06:00 UTC at home, 47.3769 N 8.5417 E.
        if let first = batch.points.first {
            #expect(Int(first.time) % 86_400 == 6 * 3600)
            #expect(abs(first.latitude - 47.3769) < 0.001 && abs(first.longitude - 8.5417) < 0.001)
        }
    }

    @Test func unitsAreTheExportsOwn() throws {
        let rec = try HistoryParserTests.read(FileByteStream(path: HistoryParserTests.fixture("2024-06.rec"))).1
        #expect(rec.points.compactMap(\.speed).max() == Float(43) / 3.6, "vel 43 km/h is 12 m/s")
        let gpx = try HistoryParserTests.read(FileByteStream(path: HistoryParserTests.fixture("old.gpx"))).1
        #expect(gpx.points.compactMap(\.speed).max() == 12, "GPX 1.0 speed in m/s")
        let semantic = try HistoryParserTests.read(FileByteStream(path: HistoryParserTests.fixture("2024_JUNE.json"))).1
        #expect(semantic.activities.map(\.mode) == [.walking, .driving], "WALKING, IN_PASSENGER_VEHICLE")
    }

    @Test func aTakeoutZipGivesEveryExportInIt() throws {
        let zip = try ZipEntryStream(FileByteStream(path: HistoryParserTests.fixture("takeout-20240701T000000Z-001.zip")), wanted: { $0.hasSuffix(".json") })
        var found: [String: (HistoryFormat?, Int)] = [:]
        repeat {
            let (format, batch, _) = try HistoryParserTests.read(zip)
            found[String(zip.entryName.split(separator: "/").last!)] = (format, batch.points.count + batch.visits.count)
        } while try zip.next(wanted: { $0.hasSuffix(".json") })
        #expect(found["Records.json"]! == (.records, 600), "timestampMs as a string of milliseconds")
        #expect(found["2024_JUNE.json"]! == (.semantic, 3))
        #expect(found["Settings.json"]! == (.settings, 0), "device names only; this one lists none")
    }

    @Test func aCutFileKeepsWhatCameBeforeTheCut() throws {
        let gpx = try Data(contentsOf: URL(fileURLWithPath: HistoryParserTests.fixture("track.gpx")))
        let (_, batch, failure) = try HistoryParserTests.read(bytes: Array(gpx.prefix(gpx.count / 2)))
        #expect(failure?.description.hasPrefix("cut off at line") == true)
        #expect((290...300).contains(batch.points.count), "\(batch.points.count)")
        let json = Array(#"{"locations": [{"latitudeE7": 473769000, "longitudeE7": 85417000, "timestamp": "2024-06-01T06:00:00Z"}, {"latitudeE7": 4737"#.utf8)
        let (_, records, cut) = try HistoryParserTests.read(bytes: json)
        #expect(records.points.count == 1 && cut != nil)
    }

    @Test func badRecordsAreCountedByLineAndTheRestRead() throws {
        let text = """
        {"locations": [
          {"latitudeE7": 473769000, "longitudeE7": 85417000, "timestamp": "2024-06-01T06:00:00Z"},
          {"latitudeE7": "north", "timestamp": "2024-06-01T06:00:30Z"},
          {"latitudeE7": 473769000, "longitudeE7": 85417000, "timestampMs": "1717221660000"}
        ]}
        """
        let (_, batch, failure) = try HistoryParserTests.read(bytes: Array(text.utf8))
        #expect(failure == nil && batch.points.count == 2 && batch.bad == 1)
        #expect(batch.points.map(\.time) == [1_717_221_600, 1_717_221_660])
    }

    @Test func timesAndCoordinatesInEveryNotation() {
        #expect(HistoryTime.parse("2024-06-01T06:00:00Z") == 1_717_221_600)
        #expect(HistoryTime.parse("2024-06-01T08:00:00.500+02:00") == 1_717_221_600.5)
        #expect(HistoryTime.parse("2024-06-01T01:30:00-0430") == 1_717_221_600)
        #expect(HistoryTime.parse("2024-06-01T06:00:00") == nil, "no zone, no instant")
        #expect(HistoryTime.parse("2024-13-01T06:00:00Z") == nil)
        #expect(HistoryTime.latLng("47.3769°, 8.5417°")! == (47.3769, 8.5417))
        #expect(HistoryTime.latLng("-22.9189912°, -43.224765°")! == (-22.9189912, -43.224765))
        #expect(HistoryTime.latLng("47.3769") == nil)
    }

    @Test func theSamePointFromTwoExportsCountsOnceWhicheverCameFirst() {
        let seven = Fix(time: 100, latitude: 47.3769123, longitude: 8.5417456, error: 12)
        let six = Fix(time: 100.2, latitude: 47.376912, longitude: 8.541746)
        #expect(HistoryRecords.deduplicated([seven, six]) == [seven])
        #expect(HistoryRecords.deduplicated([six, seven]) == [seven], "the copy with an accuracy wins, in either order")
    }

    @Test func nestedAndOverlappingVisitsAreOne() {
        let places = HistoryPlaces(settings: .init())
        let outer = StatedVisit(start: 0, end: 3600, latitude: 47.3773, longitude: 8.5417)      // hierarchy level 1, 45 m north
        let inner = StatedVisit(start: 120, end: 3480, latitude: 47.3769, longitude: 8.5417)
        let detected = Visit(arrival: 60, departure: 3700, latitude: 47.37691, longitude: 8.54171, accuracy: 5, fixes: 120,
                             key: VisitDetector.key(arrival: 60, latitude: 47.3769, longitude: 8.5417))
        let far = StatedVisit(start: 4000, end: 5000, latitude: 47.40, longitude: 8.5417)
        let merged = places.merge([detected], stated: [inner, far, outer])
        #expect(merged.count == 2)
        #expect(merged[0].arrival == 0 && merged[0].departure == 3700, "earliest arrival to latest departure")
        #expect(merged[0].latitude == 47.37691, "the detected position")
        #expect(merged[0].key == VisitDetector.key(arrival: 0, latitude: 47.3773, longitude: 8.5417), "the earliest member's key")
    }
}

extension HistoryParserTests {
    @Test func aRecLineStillBeingWrittenIsNoErrorAndOnlyLocationsAreFixes() throws {
        let text = """
        2024-06-03T06:00:00Z\t*                 \t{"_type":"location","tst":1717394400,"lat":47.3769,"lon":8.5417,"acc":8,"vel":36}
        2024-06-03T06:00:10Z\t*                 \t{"_type":"transition","tst":1717394410,"lat":47.3769,"lon":8.5417,"event":"leave"}
        2024-06-03T06:00:20Z\t*                 \tnot json
        2024-06-03T06:00:30Z\t*                 \t{"_type":"location","tst":1717394430,"lat":47.3
        """
        let (format, batch, failure) = try HistoryParserTests.read(bytes: Array(text.utf8))
        #expect(format == .owntracks && failure == nil)
        #expect(batch.points.map(\.time) == [1_717_394_400] && batch.points.first?.speed == 10, "vel 36 km/h")
        #expect(batch.bad == 1, "the broken line counts; the unfinished last one does not")
    }
}
