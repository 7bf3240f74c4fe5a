import Foundation
import IngestCore
import Testing

/// The location-history adapter end to end: the generated fixtures (fixtures/location-history,
/// one scripted day per format, shapes as the real exports write them) in a temp folder, the
/// real binary, the real test node. The expected stays come from the generator's script.
@Suite("location-history adapter against the test node", .serialized)
struct LocationHistoryTests {
    static let fixtures = repoRoot + "/fixtures/location-history"
    static let all = ["Records.json", "track.gpx", "2024_JUNE.json", "Timeline.json", "2024-06.rec", "dawarich.json",
                      "gpslogger.geojson", "old.gpx", "takeout-20240701T000000Z-001.zip"]

    @Test func everyFormatGivesTheScriptedStaysAsOneVisitEachAndOneTripPerPair() throws {
        let rig = try LocationRig()
        for name in LocationHistoryTests.all { try rig.copy(name) }
        try rig.run()
        let visits = try rig.items("location"), trips = try rig.items("motion")
        let expected = try #require(JSONValue.parse(Array(try Data(contentsOf: URL(fileURLWithPath: LocationHistoryTests.fixtures + "/expected.json")))))
        guard case .object(let days) = expected else { Issue.record("expected.json"); return }
        let stays = days.keys.sorted().filter { day in (days[day]?["files"]?.arrayValue ?? []).allSatisfy { LocationHistoryTests.all.contains($0.stringValue ?? "") } }
            .flatMap { days[$0]?["stays"]?.arrayValue ?? [] }
        #expect(visits.count == stays.count, "7 days × 3 stays, each one visit: semantic, Timeline level 0 and 1, GPX and Records copies merged")
        #expect(trips.count == visits.count - 1, "one trip per pair of consecutive visits; activity segments add none")
        for (visit, stay) in zip(visits, stays) {
            let arrival = try #require(LocationRig.time(visit["arrival"])), departure = try #require(LocationRig.time(visit["departure"]))
            // Points every 30 s; a stay reaches out to the radius (72 s walking), a stated visit starts 1 min in.
            #expect(abs(arrival - (stay["arrival"]?.doubleValue ?? 0)) <= 120, "arrival \(visit)")
            #expect(abs(departure - (stay["departure"]?.doubleValue ?? 0)) <= 120, "departure \(visit)")
            let lat = visit["lat"]?.doubleValue ?? 0, lon = visit["lon"]?.doubleValue ?? 0
            #expect(abs(lat - (stay["lat"]?.doubleValue ?? 0)) * 111_320 < 10 && abs(lon - (stay["lon"]?.doubleValue ?? 0)) * 75_500 < 10, "\(visit)")
            #expect((2...12).contains(visit["accuracy_m"]?.doubleValue ?? 0), "σ = 4 m noise: \(visit)")
        }
        // Each home stay is 120 points (60 min every 30 s) plus the walk's first ones within the radius:
        // on 06-01 the GPX and Records.json copies of every point count once.
        let homeFixes = visits.filter { ($0["arrival"]?.stringValue ?? "").hasSuffix("T06:00:00Z") }.map { $0["fixes"]?.intValue ?? 0 }
        #expect(homeFixes.count == 7 && homeFixes.allSatisfy { (120...126).contains($0) }, "\(homeFixes)")
        let daytime = trips.filter { !(($0["start"]?.stringValue ?? "").contains("T10:") || ($0["start"]?.stringValue ?? "").contains("T11:")) }
        #expect(daytime.map { $0["mode"]?.stringValue ?? "" } == Array(repeating: ["walking", "driving"], count: 7).flatMap { $0 },
                "from speeds, OwnTracks vel in km/h, GeoJSON speed, or the export's activity type")
    }

    @Test func fileOrderRenamesMovesAndResyncChangeNoKeyOrVersionAndSendNoTombstone() throws {
        // Records.json first, then the GPX copy of the same points (6 digits, no accuracy) …
        let a = try LocationRig()
        try a.copy("Records.json"); try a.run()
        try a.copy("track.gpx"); try a.run()
        // … or the GPX first: the same items in the end, whichever copy came first.
        let b = try LocationRig()
        try b.copy("track.gpx"); try b.run()
        try b.copy("Records.json"); try b.run()
        #expect(try a.latest().mapValues(\.version) == b.latest().mapValues(\.version), "which copy of a point counts is decided by content")
        #expect(try a.counts("location").accepted == 3, "the GPX copy changed nothing once Records.json was read")

        let before = try a.counts("location")
        try FileManager.default.createDirectory(atPath: a.exports + "/moved", withIntermediateDirectories: true)
        try FileManager.default.moveItem(atPath: a.exports + "/Records.json", toPath: a.exports + "/moved/renamed.json")
        try a.run()
        try a.agent.run(["resync", "lh"])
        let after = try a.counts("location")
        #expect(after.accepted == before.accepted && after.live == before.live, "no new version, no tombstone: \(before) → \(after)")
        #expect(try a.counts("motion").live == 2)
    }

    @Test func appendingToARecFileSendsOnlyWhatIsNew() throws {
        let rig = try LocationRig()
        let lines = try String(contentsOfFile: LocationHistoryTests.fixtures + "/2024-06.rec", encoding: .utf8).split(separator: "\n")
        // Up to the middle of the café stay, then the rest appended.
        let cut = lines.firstIndex { $0.hasPrefix("2024-06-03T07:40") }!
        try (lines[..<cut].joined(separator: "\n") + "\n").write(toFile: rig.exports + "/owntracks.rec", atomically: false, encoding: .utf8)
        try rig.run()
        let first = try rig.latest()
        #expect(first.count == 3, "home, the walk, the café still open")
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: rig.exports + "/owntracks.rec"))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data((lines[cut...].joined(separator: "\n") + "\n").utf8))
        try handle.close()
        try rig.run()
        let second = try rig.latest()
        #expect(second.count == 5, "the café closed, the drive, the office")
        let home = try #require(first.first { $0.key.hasPrefix("visit:") && $0.value.arrival.hasSuffix("T06:00:00Z") })
        #expect(second[home.key]?.version == home.value.version && second[home.key]?.receipts == 1, "home is not sent again")
        #expect(try rig.counts("location").accepted == 4, "home, the open café, the closed café, the office")
    }

    @Test func aCutOffAndAnUnknownFileGiveOneWarningEachAndTheRestCounts() throws {
        let rig = try LocationRig()
        let records = try Data(contentsOf: URL(fileURLWithPath: LocationHistoryTests.fixtures + "/Records.json"))
        try records.prefix(records.count * 35 / 100).write(to: URL(fileURLWithPath: rig.exports + "/Records.json"))   // cut in the café stay
        try "hello, not an export\n".write(toFile: rig.root + "/notes.txt", atomically: true, encoding: .utf8)
        try rig.agent.write("adapters.d/lh.conf", "[Adapter]\nType=location-history\nPath=\(rig.exports)\nPath=\(rig.root)/notes.txt\n")
        let r = try rig.run()
        let warnings = r.stderr.split(separator: "\n").filter { $0.contains("Records.json") || $0.contains("notes.txt") }
        #expect(warnings.count == 2, "\(r.stderr)")
        #expect(warnings.contains { $0.contains("Records.json") && $0.contains("cut off") && $0.contains("kept") })
        #expect(warnings.contains { $0.contains("notes.txt") && $0.contains("not a location-history export") })
        #expect(try rig.items("location").map { $0["arrival"]?.stringValue ?? "" } == ["2024-06-01T06:00:00Z", "2024-06-01T07:14:00Z"],
                "home and the café as far as the file goes")
    }

    @Test func aTakeoutZipCutOffMidEntryGivesOneWarningAndKeepsWhatCameBefore() throws {
        let rig = try LocationRig()
        let zip = try Data(contentsOf: URL(fileURLWithPath: LocationHistoryTests.fixtures + "/takeout-20240701T000000Z-001.zip"))
        try zip.prefix(zip.count / 2).write(to: URL(fileURLWithPath: rig.exports + "/takeout.zip"))     // inside Records.json
        let r = try rig.run()
        let warnings = r.stderr.split(separator: "\n").filter { $0.contains("takeout.zip") }
        #expect(warnings.count == 1 && warnings.first?.contains("cut off") == true, "\(r.stderr)")
        #expect(try rig.items("location").first?["arrival"] == "2024-06-07T06:00:00Z", "the points before the cut count")
    }

    /// Stores written before each day kept its own table of what went out held one table for all
    /// days, in the `days` group: the first run reads it, sends nothing it lists again, sends a
    /// tombstone for a key it lists that is no longer derived, and moves it to the days.
    @Test func theOneTableOfAnOlderStoreIsHonouredOnceAndMovedToTheDays() throws {
        let rig = try LocationRig()
        try rig.copy("Records.json")
        try rig.run()
        let first = try rig.latest()
        // A visit that earlier points gave and later ones no longer do, sent by an earlier run.
        let gone = "visit:" + String(repeating: "0", count: 32)
        try rig.node.ingest("location", source: "linux-location-history", items: [
            ["key": .string(gone), "version": "v1", "arrival": "2024-05-31T06:00:00Z", "departure": "2024-05-31T07:00:00Z", "lat": 47.37, "lon": 8.54, "accuracy_m": 5, "fixes": 120],
        ])
        // The older layout: every day's lines, and that visit's, in the `days` group; the days' own empty.
        let sql = """
            UPDATE record_groups SET settled = CAST((SELECT group_concat(CAST(settled AS TEXT), '') FROM record_groups WHERE grp LIKE 'd:%') || '\(gone)\tv1\n' AS BLOB) WHERE grp = 'days';
            UPDATE record_groups SET settled = x'' WHERE grp LIKE 'd:%';
            """
        let db = rig.agent.state + "/state.db"
        #expect(try runProcess("/usr/bin/sqlite3", [db, sql]).status == 0)

        try rig.copy("2024-06.rec")
        try rig.run()
        let second = try rig.latest()
        for (key, stored) in first { #expect(second[key]?.receipts == stored.receipts, "not sent again: \(stored)") }
        #expect(second.count == first.count + 7, "the .rec file's day: 3 visits, 2 trips, the trip to it from the first day; the tombstone's key")
        #expect(try rig.node.items("location").first { $0["key"]?.stringValue == gone }?["deleted"] == .bool(true), "the vanished visit's tombstone")
        let tables = try runProcess("/usr/bin/sqlite3", [db, "SELECT grp, length(settled) > 0 FROM record_groups WHERE grp = 'days' OR grp LIKE 'd:%' ORDER BY grp"])
        // 2024-05-02: the day the .rec file's regions were made (its waypoints), which sends nothing.
        #expect(tables.stdout.split(separator: "\n") == ["d:2024-05-02|0", "d:2024-06-01|1", "d:2024-06-03|1", "days|0"], "\(tables.stdout)")
        try rig.agent.run(["resync", "lh"])
        #expect(try rig.latest().mapValues(\.version) == second.mapValues(\.version), "a resync derives the same")
    }

    @Test func aDryRunPrintsExactlyWhatARunSends() throws {
        let rig = try LocationRig()
        try rig.copy("Timeline.json"); try rig.copy("2024_JUNE.json")
        let dry = try rig.agent.run(["run", "--dry-run"])
        let printed = dry.stdout.split(separator: "\n").compactMap { JSONValue.parse(Array($0.utf8))?["item"] }
        #expect(try rig.counts("location").receipts == 0, "a dry run sends nothing")
        try rig.run()
        let sent = try rig.items("location") + rig.items("motion")
        #expect(Set(printed.map(\.encoded)) == Set(sent.map(\.encoded)), "the same items, field for field")
        #expect(printed.allSatisfy { $0["lat"] == nil || $0["fixes"] != nil }, "no raw point goes out")
    }
}

final class LocationRig {
    let node: TestNode
    let agent: AgentSandbox
    let exports: String
    let fixtures: String
    var root: String { agent.root }

    /// An instance `lh` of the file adapter `type` reading the folder `exports`, whose files are copied from `fixtures`
    /// (listening-history's tests use it too).
    init(type: String = "location-history", fixtures: String = LocationHistoryTests.fixtures) throws {
        node = try TestNode()
        agent = try AgentSandbox()
        exports = agent.root + "/exports"
        self.fixtures = fixtures
        try FileManager.default.createDirectory(atPath: exports, withIntermediateDirectories: true)
        try agent.usePairedNode(node.url, token: node.token)
        try agent.write("adapters.d/lh.conf", "[Adapter]\nType=\(type)\nPath=\(exports)\n")
    }

    func copy(_ name: String) throws {
        try FileManager.default.copyItem(atPath: fixtures + "/" + name, toPath: exports + "/" + name)
    }

    @discardableResult
    func run(sourceLocation: SourceLocation = #_sourceLocation) throws -> ProcessResult {
        let r = try agent.run(["run"])
        #expect(r.status == 0, "run: \(r.stderr)", sourceLocation: sourceLocation)
        return r
    }

    /// The stored items of `endpoint`, in time order.
    func items(_ endpoint: String) throws -> [JSONValue] {
        try node.items(endpoint).filter { $0["deleted"] != .bool(true) }.compactMap { record -> JSONValue? in
            #expect(record["source"] == "linux-location-history")
            return record["item"]
        }.sorted { (LocationRig.time($0["arrival"] ?? $0["start"]) ?? 0) < (LocationRig.time($1["arrival"] ?? $1["start"]) ?? 0) }
    }

    struct Stored: Equatable { var version: String; var receipts: Int64; var arrival: String }

    /// Every stored item by key.
    func latest() throws -> [String: Stored] {
        var out: [String: Stored] = [:]
        for record in try node.items("location") + node.items("motion") {
            guard let key = record["key"]?.stringValue else { continue }
            out[key] = Stored(version: record["version"]?.stringValue ?? "", receipts: record["receipts"]?.intValue ?? 0,
                              arrival: record["item"]?["arrival"]?.stringValue ?? record["item"]?["start"]?.stringValue ?? "")
        }
        return out
    }

    func counts(_ endpoint: String) throws -> (accepted: Int64, live: Int64, receipts: Int64) {
        let c = try node.admin("counts")["endpoints"]?[endpoint]
        return (c?["accepted"]?.intValue ?? -1, c?["live"]?.intValue ?? -1, c?["receipts"]?.intValue ?? -1)
    }

    static func time(_ value: JSONValue?) -> Double? {
        value?.stringValue.flatMap { ISO8601DateFormatter().date(from: $0)?.timeIntervalSince1970 }
    }
}
