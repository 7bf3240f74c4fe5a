import Foundation
import IngestCore
import Testing

/// Fitness and map files end to end: a KMZ from Google Earth, a Garmin Connect TCX, Strava's
/// bulk export (a `.fit.gz` in a zip) and Garmin's data export (a `.fit` in a zip in a zip),
/// each one scripted day (fixtures/location-history/make-fitness.py), read by the real binary
/// and sent to the test node.
@Suite("location-history fitness and map files against the test node", .serialized)
struct LocationHistoryFitnessTests {
    static let files = ["earth.kmz", "garmin.tcx", "export_12345678.zip", "a1b2c3d4_1.zip"]

    @Test func eachFileGivesItsDaysStaysAsVisitsAndItsTrips() throws {
        let rig = try LocationRig()
        for name in LocationHistoryFitnessTests.files { try rig.copy(name) }
        let r = try rig.run()
        #expect(!r.stderr.contains("earth.kmz") && !r.stderr.contains(".zip") && !r.stderr.contains("garmin.tcx"), "no warning: \(r.stderr)")
        let script = try #require(JSONValue.parse(Array(try Data(contentsOf: URL(fileURLWithPath: LocationHistoryTests.fixtures + "/fitness-expected.json")))))
        guard case .object(let days) = script else { Issue.record("fitness-expected.json"); return }
        let stays = days.keys.sorted().flatMap { days[$0]?["stays"]?.arrayValue ?? [] }
        let scriptedTrips = days.keys.sorted().flatMap { days[$0]?["trips"]?.arrayValue ?? [] }
        let visits = try rig.items("location"), trips = try rig.items("motion")
        // Four days of home, café, office: 12 visits; a trip between every two, overnight ones included.
        #expect(visits.count == 12 && stays.count == 12, "\(visits.map { $0["arrival"]?.stringValue ?? "" })")
        for (visit, stay) in zip(visits, stays) {
            let arrival = try #require(LocationRig.time(visit["arrival"])), departure = try #require(LocationRig.time(visit["departure"]))
            let want = (stay["arrival"]?.doubleValue ?? 0, stay["departure"]?.doubleValue ?? 0)
            // A point every 30 s: a stay reaches out to the radius of its place (72 s of walking).
            #expect(abs(arrival - want.0) <= 90 && abs(departure - want.1) <= 90, "\(visit) vs \(stay)")
            #expect(abs((visit["lat"]?.doubleValue ?? 0) - (stay["lat"]?.doubleValue ?? 0)) * 111_320 < 10, "\(visit)")
            #expect(abs((visit["lon"]?.doubleValue ?? 0) - (stay["lon"]?.doubleValue ?? 0)) * 75_500 < 10, "\(visit)")
            #expect((88...330).contains(visit["fixes"]?.intValue ?? 0), "one fix per 30 s of the stay: \(visit)")
        }
        #expect(trips.count == 11)
        let sameDay = trips.filter { LocationRig.time($0["start"]).map { Int($0) % 86_400 < 10 * 3600 } ?? false }
        #expect(sameDay.count == scriptedTrips.count)
        for (trip, scripted) in zip(sameDay, scriptedTrips) {
            #expect(trip["mode"]?.stringValue == scripted["mode"]?.stringValue, "from the points' speeds: \(trip)")
            #expect(abs((LocationRig.time(trip["start"]) ?? 0) - (scripted["start"]?.doubleValue ?? 0)) <= 90, "\(trip)")
        }
    }

    @Test func aCutFITInAGzipKeepsWhatCameBeforeWithOneWarning() throws {
        let rig = try LocationRig()
        let zip = try Data(contentsOf: URL(fileURLWithPath: LocationHistoryTests.fixtures + "/export_12345678.zip"))
        // The .fit.gz entry is the archive's last and most of it: two thirds of the archive end inside it.
        try zip.prefix(zip.count * 2 / 3).write(to: URL(fileURLWithPath: rig.exports + "/export_cut.zip"))
        let r = try rig.run()
        let warnings = r.stderr.split(separator: "\n").filter { $0.contains("export_cut.zip") }
        #expect(warnings.count == 1, "\(r.stderr)")
        #expect(try rig.items("location").first?["arrival"] == "2024-06-10T06:00:00Z", "the records before the cut count")
    }
}
