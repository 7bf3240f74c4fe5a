import Foundation
import IngestCore
import Testing

/// The newer and older export shapes end to end, a scripted day each (fixtures/location-history:
/// make-fixtures.py writes them in the shapes real exports have and says where each was read),
/// and a Records.json of two devices: the real binary, the real test node.
@Suite("location-history: every Timeline shape and two devices", .serialized)
struct LocationHistoryShapesTests {
    /// The scripted day of expected.json that `file` alone holds.
    static func expectedDay(_ file: String) throws -> JSONValue {
        let data = try Data(contentsOf: URL(fileURLWithPath: LocationHistoryTests.fixtures + "/expected.json"))
        guard case .object(let days)? = JSONValue.parse(Array(data)),
              let day = days.values.first(where: { $0["files"] == .array([.string(file)]) }) else { throw NoDay(file: file) }
        return day
    }

    struct NoDay: Error { var file: String }

    /// Visits match the script's stays one for one (times within 2 minutes, places within 10 m),
    /// trips its trips with their modes.
    static func expectScripted(_ rig: LocationRig, _ day: JSONValue, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let visits = try rig.items("location"), trips = try rig.items("motion")
        let stays = day["stays"]?.arrayValue ?? [], legs = day["trips"]?.arrayValue ?? []
        #expect(visits.count == stays.count && trips.count == legs.count, "\(visits) \(trips)", sourceLocation: sourceLocation)
        for (visit, stay) in zip(visits, stays) {
            let arrival = LocationRig.time(visit["arrival"]) ?? 0, departure = LocationRig.time(visit["departure"]) ?? 0
            #expect(abs(arrival - (stay["arrival"]?.doubleValue ?? 0)) <= 120 && abs(departure - (stay["departure"]?.doubleValue ?? 0)) <= 120,
                    "\(visit) for \(stay)", sourceLocation: sourceLocation)
            let north = ((visit["lat"]?.doubleValue ?? 0) - (stay["lat"]?.doubleValue ?? 0)) * 111_320
            let east = ((visit["lon"]?.doubleValue ?? 0) - (stay["lon"]?.doubleValue ?? 0)) * 75_500
            #expect((north * north + east * east).squareRoot() < 10, "\(visit)", sourceLocation: sourceLocation)
        }
        #expect(trips.map { $0["mode"]?.stringValue ?? "" } == legs.map { $0["mode"]?.stringValue ?? "" }, sourceLocation: sourceLocation)
        for (trip, leg) in zip(trips, legs) {
            #expect(abs((LocationRig.time(trip["start"]) ?? 0) - (leg["start"]?.doubleValue ?? 0)) <= 120, "\(trip)", sourceLocation: sourceLocation)
        }
    }

    @Test(arguments: ["location-history.json", "Timeline-2025.json", "Timeline Edits.json", "2014_MARCH.json", "nozone.gpx"])
    func eachShapeGivesItsScriptedDay(file: String) throws {
        let rig = try LocationRig()
        try rig.copy(file)
        let r = try rig.run()
        #expect(!r.stderr.contains(file), "no warning: \(r.stderr)")
        try LocationHistoryShapesTests.expectScripted(rig, LocationHistoryShapesTests.expectedDay(file))
    }

    static let phone = "1234567890", tablet = "-1935307820"

    @Test func aPhoneAndATabletGiveThePhonesDayWithNoTripThePhoneDidNotMakeAndOneWarning() throws {
        let rig = try LocationRig()
        let day = try LocationHistoryShapesTests.expectedDay("Records-devices.json")
        let zone = ["TZ": day["zone"]?.stringValue ?? ""]
        try rig.copy("Records-devices.json"); try rig.copy("Settings.json")
        let first = try rig.agent.run(["run"], env: zone)
        #expect(first.status == 0)
        try LocationHistoryShapesTests.expectScripted(rig, day)
        let warnings = first.stderr.split(separator: "\n").filter { $0.contains("devices") }
        #expect(warnings.count == 1 && warnings[0].contains("\(LocationHistoryShapesTests.phone) (Google Pixel 7, 1440 points)")
                && warnings[0].contains("\(LocationHistoryShapesTests.tablet) (Samsung Galaxy Tab S6 Lite, 720 points)"), "\(first.stderr)")
        // Another export later: the devices were named once.
        try rig.copy("track.gpx")
        let second = try rig.agent.run(["run"], env: zone)
        #expect(second.status == 0 && !second.stderr.contains("devices"), "\(second.stderr)")
        #expect(try rig.items("location").count == 6, "the phone's day and the GPX day")
    }

    @Test func deviceTagPicksTheTabletAlone() throws {
        let rig = try LocationRig()
        let day = try LocationHistoryShapesTests.expectedDay("Records-devices.json")
        try rig.copy("Records-devices.json")
        try rig.agent.write("adapters.d/lh.conf", "[Adapter]\nType=location-history\nPath=\(rig.exports)\nDeviceTag=\(LocationHistoryShapesTests.tablet)\n")
        let r = try rig.agent.run(["run"], env: ["TZ": day["zone"]?.stringValue ?? ""])
        #expect(r.status == 0 && r.stderr.contains("DeviceTag= picks \(LocationHistoryShapesTests.tablet)"), "\(r.stderr)")
        let visits = try rig.items("location"), trips = try rig.items("motion")
        #expect(visits.count == 1 && trips.isEmpty, "the tablet never moved: \(visits) \(trips)")
        #expect(abs((visits.first?["lat"]?.doubleValue ?? 0) - (day["tablet"]?["lat"]?.doubleValue ?? 0)) < 0.0001)
    }

    @Test func aDeviceTagNamingNoDeviceIsSaidWithTheDevicesThereAre() throws {
        let rig = try LocationRig()
        try rig.copy("Records-devices.json")
        try rig.agent.write("adapters.d/lh.conf", "[Adapter]\nType=location-history\nPath=\(rig.exports)\nDeviceTag=42\n")
        let r = try rig.run()
        let lines = r.stderr.split(separator: "\n").filter { $0.contains("DeviceTag=42") }
        #expect(lines.count == 1 && lines[0].contains("names no device") && lines[0].contains("\(LocationHistoryShapesTests.phone) (1440 points)"),
                "\(r.stderr)")
        #expect(try rig.items("location").isEmpty, "no device picked, no visit")
    }
}
