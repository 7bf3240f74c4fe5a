import Foundation
import Testing
@testable import Adapters

/// KML, TCX and FIT: the generated fixtures (fixtures/location-history/make-fitness.py) and
/// hand-made inputs with exact points.
struct FitnessParserTests {
    typealias Read = (format: HistoryFormat?, batch: HistoryBatch, failure: FileReadError?)

    static func read(_ text: String) throws -> Read { try HistoryParserTests.read(bytes: Array(text.utf8)) }

    /// Entry `entry` of fixture zip `name`, whole.
    static func zipped(_ name: String, entry: String) throws -> [UInt8] {
        var reader = BlockReader(try ZipEntryStream(FileByteStream(path: HistoryParserTests.fixture(name)), wanted: { $0 == entry }))
        while try reader.refill() {}
        return reader.bytes
    }

    @Test func aKMZsMultiTrackGivesEveryPointAndThePinAndTheCameraNone() throws {
        let (format, batch, failure) = try HistoryParserTests.read(bytes: FitnessParserTests.zipped("earth.kmz", entry: "doc.kml"))
        #expect(format == .kml && failure == nil && batch.bad == 0)
        #expect(batch.points.count == 600 && batch.visits.isEmpty)
        let first = try #require(batch.points.first)
        #expect(first.time == HistoryTime.parse("2024-06-08T06:00:00Z") && first.altitude == 408)
        #expect(abs(first.latitude - 47.3769) < 0.0005 && abs(first.longitude - 8.5417) < 0.0005)
        #expect(batch.points.last?.time == HistoryTime.parse("2024-06-08T10:59:30Z"))
    }

    @Test func kmlTracksInEitherOrderTimedPlacemarksAndStatedStays() throws {
        let text = """
        <?xml version="1.0" encoding="UTF-8"?>
        <kml:kml xmlns:kml="http://www.opengis.net/kml/2.2" xmlns:gx="http://www.google.com/kml/ext/2.2"><kml:Document>
        <LookAt><gx:TimeStamp><when>2020-01-01T00:00:00Z</when></gx:TimeStamp></LookAt>
        <Placemark><gx:Track>
          <when>2024-06-01T06:00:00Z</when><gx:coord>8.5417 47.3769 408</gx:coord>
          <when>2024-06-01T06:00:30.5Z</when><gx:coord>8.5418 47.3770</gx:coord>
        </gx:Track></Placemark>
        <Placemark><gx:MultiTrack><gx:Track><when>2024-06-01T07:00:00+02:00</when><gx:coord>8.6 47.4 0</gx:coord></gx:Track>
          <gx:Track><when>2024-06-01T07:00:00Z</when><when>2024-06-01T07:00:10Z</when><gx:coord>8.7 47.5 0</gx:coord></gx:Track></gx:MultiTrack></Placemark>
        <Placemark><name>Pin</name><Point><coordinates>8.55,47.37,0</coordinates></Point></Placemark>
        <Placemark><TimeStamp><when>2024-06-01T08:00:00Z</when></TimeStamp><Point><coordinates> 8.56,47.38 </coordinates></Point></Placemark>
        <Placemark><name>Café</name><TimeSpan><begin>2024-06-01T09:00:00.000Z</begin><end>2024-06-01T10:00:00.000Z</end></TimeSpan>
          <Point><coordinates>8.57,47.39,0</coordinates></Point></Placemark>
        <Placemark><TimeSpan><begin>2024-06-01T11:00:00Z</begin></TimeSpan><Point><coordinates>8.58,47.40</coordinates></Point></Placemark>
        <Placemark><TimeSpan><begin>2024-06-01T12:00:00Z</begin><end>2024-06-01T13:00:00Z</end></TimeSpan>
          <LineString><coordinates>8.5,47.3 8.6,47.4</coordinates></LineString></Placemark>
        </kml:Document></kml:kml>
        """
        let (format, batch, failure) = try FitnessParserTests.read(text)
        #expect(format == .kml && failure == nil)
        let t = HistoryTime.parse("2024-06-01T06:00:00Z")!
        #expect(batch.points == [
            Fix(time: t, latitude: 47.3769, longitude: 8.5417, altitude: 408), Fix(time: t + 30.5, latitude: 47.377, longitude: 8.5418),
            Fix(time: t - 3600, latitude: 47.4, longitude: 8.6, altitude: 0), Fix(time: t + 3600, latitude: 47.5, longitude: 8.7, altitude: 0),
            Fix(time: t + 7200, latitude: 47.38, longitude: 8.56), Fix(time: t + 5 * 3600, latitude: 47.40, longitude: 8.58),
        ])
        #expect(batch.visits == [StatedVisit(start: t + 3 * 3600, end: t + 4 * 3600, latitude: 47.39, longitude: 8.57)])
        #expect(batch.bad == 1, "the track of two times and one coordinate; the pin and the drawn line are no errors")
    }

    /// Traccar's KmlExportProvider: upstream writes one Placemark with an untimed LineString;
    /// servers whose export adds a gx:Track write it on one line through an XMLStreamWriter, the
    /// `gx` namespace declared on the track itself, the LineString after it in the same Placemark.
    @Test func traccarsExportsInBothShapes() throws {
        let upstream = #"<?xml version="1.0" encoding="UTF-8"?><kml xmlns="http://www.opengis.net/kml/2.2"><Document><name>Van</name><Placemark><name>2024-06-01 06:00 - 2024-06-01 07:00</name><LineString><extrude>1</extrude><tessellate>1</tessellate><altitudeMode>absolute</altitudeMode><coordinates>8.541700,47.376900,408.000000 8.541800,47.377000,408.000000</coordinates></LineString></Placemark></Document></kml>"#
        let plain = try FitnessParserTests.read(upstream)
        #expect(plain.format == .kml && plain.failure == nil && plain.batch.points.isEmpty && plain.batch.bad == 0)
        let tracked = #"<?xml version="1.0" encoding="UTF-8"?><kml xmlns="http://www.opengis.net/kml/2.2"><Document><name>Van</name><Placemark><name>2024-06-01 06:00 - 2024-06-01 07:00</name><gx:Track xmlns:gx="http://www.google.com/kml/ext/2.2"><altitudeMode>absolute</altitudeMode><when>2024-06-01T06:00:00Z</when><when>2024-06-01T06:00:30.250Z</when><gx:coord>8.541700 47.376900 408.000000</gx:coord><gx:coord>8.541800 47.377000 408.000000</gx:coord></gx:Track><LineString><coordinates>8.541700,47.376900,408.000000 8.541800,47.377000,408.000000</coordinates></LineString></Placemark></Document></kml>"#
        let track = try FitnessParserTests.read(tracked)
        let t = HistoryTime.parse("2024-06-01T06:00:00Z")!
        #expect(track.batch.points == [Fix(time: t, latitude: 47.3769, longitude: 8.5417, altitude: 408),
                                       Fix(time: t + 30.25, latitude: 47.377, longitude: 8.5418, altitude: 408)])
        #expect(track.failure == nil && track.batch.bad == 0)
    }

    @Test func tcxTrackpointsWithAPositionAreThePoints() throws {
        let text = """
        <?xml version="1.0" encoding="UTF-8"?>
        <TrainingCenterDatabase xmlns="http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2"><Courses><Course><Lap>
          <BeginPosition><LatitudeDegrees>1</LatitudeDegrees><LongitudeDegrees>2</LongitudeDegrees></BeginPosition></Lap>
          <Track>
            <Trackpoint><Time>2024-06-01T05:59:50.000Z</Time><HeartRateBpm><Value>88</Value></HeartRateBpm></Trackpoint>
            <Trackpoint><Time>2024-06-01T06:00:00.000Z</Time><Position><LatitudeDegrees>47.3769</LatitudeDegrees>
              <LongitudeDegrees>8.5417</LongitudeDegrees></Position><AltitudeMeters>408.5</AltitudeMeters></Trackpoint>
            <Trackpoint><Time>yesterday</Time><Position><LatitudeDegrees>47.3769</LatitudeDegrees><LongitudeDegrees>8.5417</LongitudeDegrees></Position></Trackpoint>
            <Trackpoint><Time>2024-06-01T06:00:01Z</Time><Position><LatitudeDegrees>-33.9</LatitudeDegrees><LongitudeDegrees>151.2</LongitudeDegrees></Position></Trackpoint>
          </Track></Course></Courses></TrainingCenterDatabase>
        """
        let (format, batch, failure) = try FitnessParserTests.read(text)
        #expect(format == .tcx && failure == nil)
        let t = HistoryTime.parse("2024-06-01T06:00:00Z")!
        #expect(batch.points == [Fix(time: t, latitude: 47.3769, longitude: 8.5417, altitude: 408.5), Fix(time: t + 1, latitude: -33.9, longitude: 151.2)])
        #expect(batch.bad == 1 && batch.firstBad == 8, "the trackpoint at line 8 has no readable time; the heart-rate one is no error")

        let (_, garmin, cut) = try HistoryParserTests.read(FileByteStream(path: HistoryParserTests.fixture("garmin.tcx")))
        #expect(cut == nil && garmin.points.count == 600 && garmin.bad == 0)
        #expect(garmin.points.first?.time == HistoryTime.parse("2024-06-09T06:00:00Z"))
    }
}
