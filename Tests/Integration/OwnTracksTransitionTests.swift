import Foundation
import IngestCore
import Testing

/// OwnTracks region transitions as stated visits, end to end: a quiet OwnTracks day
/// (fixtures/location-history/transitions.rec, significant-change monitoring: a location about
/// every 500 m moved, none while still) read by the real binary, the visits and trips at the test node.
@Suite("OwnTracks transitions: region enter and leave as visits", .serialized)
struct OwnTracksTransitionTests {
    struct Expected: Decodable {
        struct Visit: Decodable { var name: String; var arrival: Double; var departure: Double; var lat: Double; var lon: Double }
        struct Trip: Decodable { var name: String; var start: Double; var end: Double; var mode: String }
        var visits: [Visit]
        var trips: [Trip]
    }

    @Test func eachRegionStayIsOneVisitFromEnterToLeaveAtItsWaypointOrWhereItsEventsFired() throws {
        let rig = try LocationRig()
        try rig.copy("transitions.rec")
        try rig.run()
        let expected = try JSONDecoder().decode(Expected.self, from: Data(contentsOf: URL(fileURLWithPath: LocationHistoryTests.fixtures + "/transitions.expected.json")))
        let visits = try rig.items("location"), trips = try rig.items("motion")
        // Home: two locations 30 min apart (bridged); Cafe: its enter and leave locations, merged with
        // the stated visit; Office: stated only, at its waypoint (both events fired on its west
        // side); Park: stated only, no waypoint, midway between its events.
        #expect(visits.map { LocationRig.time($0["arrival"]) } == expected.visits.map(\.arrival), "\(visits)")
        #expect(visits.map { LocationRig.time($0["departure"]) } == expected.visits.map(\.departure), "\(visits)")
        for (got, want) in zip(visits, expected.visits) {
            let lat = got["lat"]?.doubleValue ?? 0, lon = got["lon"]?.doubleValue ?? 0
            let metres = ExpectedDay.metres(lat, lon, want.lat, want.lon)
            #expect(metres < 1, "\(want.name) at \(lat), \(lon): \(metres) m from \(want.lat), \(want.lon)")
        }
        #expect(visits.map { $0["fixes"]?.intValue } == [2, 2, 0, 0], "locations within each stay's span")
        #expect(trips.map { LocationRig.time($0["start"]) } == expected.trips.map(\.start))
        #expect(trips.map { LocationRig.time($0["end"]) } == expected.trips.map(\.end))
        #expect(trips.map { $0["mode"]?.stringValue } == expected.trips.map(\.mode), "from the locations' vel (km/h)")
    }

    @Test func anEnterWaitsForItsLeaveInTheNextMonthsFile() throws {
        // The Recorder writes one file a month: a stay across midnight at the month's end has its
        // enter in one file and its leave in the next; the visit is stated once both are read.
        let rig = try LocationRig()
        let lines = try String(contentsOfFile: LocationHistoryTests.fixtures + "/transitions.rec", encoding: .utf8).split(separator: "\n")
        let cut = try #require(lines.firstIndex { $0.contains(#""event":"leave","desc":"Office""#) })
        try (lines[..<cut].joined(separator: "\n") + "\n").write(toFile: rig.exports + "/2024-06.rec", atomically: false, encoding: .utf8)
        try rig.run()
        #expect(try rig.items("location").count == 2, "home and cafe; the office's enter alone states nothing yet")
        try (lines[cut...].joined(separator: "\n") + "\n").write(toFile: rig.exports + "/2024-07.rec", atomically: false, encoding: .utf8)
        try rig.run()
        let arrivals = try rig.items("location").map { LocationRig.time($0["arrival"]) }
        let expected = try JSONDecoder().decode(Expected.self, from: Data(contentsOf: URL(fileURLWithPath: LocationHistoryTests.fixtures + "/transitions.expected.json")))
        #expect(arrivals == expected.visits.map(\.arrival))
    }
}
