import Foundation
import IngestCore
import Testing

/// A Google Photos Takeout with every sidecar naming quirk (fixtures/photos/make-takeout.py),
/// unpacked and as its zip read in place, and capture times that gain their offset.
@Suite("photos adapter on Google Photos Takeouts and local times", .serialized)
struct PhotosTakeoutTests {
    /// What one item must be at the node: place, time (and altitude), and which media may carry it.
    struct Expected: Hashable, CustomStringConvertible {
        var lat: Double, lon: Double, takenAt: String, altitude: Double?
        var description: String { "\(lat), \(lon) at \(takenAt)" + (altitude.map { " alt \($0)" } ?? "") }
    }

    /// Generates the Takeout under the sandbox; returns the expected items and their media names.
    func makeTakeout(_ agent: AgentSandbox) throws -> (items: [Expected: [String]], dir: String) {
        let dir = agent.root + "/takeout"
        let r = try runProcess("/usr/bin/env", ["python3", repoRoot + "/fixtures/photos/make-takeout.py", dir])
        try #require(r.status == 0, "make-takeout.py failed: \(r.stderr)")
        let expected = try #require(JSONValue.parse(Array(try Data(contentsOf: URL(fileURLWithPath: dir + "/expected.json")))))
        var items: [Expected: [String]] = [:]
        for entry in expected.arrayValue ?? [] {
            let key = Expected(lat: try #require(entry["lat"]?.doubleValue), lon: try #require(entry["lon"]?.doubleValue),
                               takenAt: try #require(entry["taken_at"]?.stringValue), altitude: entry["altitude_m"]?.doubleValue)
            items[key] = (entry["names"]?.arrayValue ?? []).compactMap(\.stringValue)
        }
        return (items, dir)
    }

    /// Runs the agent over `path` into a fresh test node and checks every stored item exactly.
    func checkNode(scanning path: String, in agent: AgentSandbox, expected: [Expected: [String]]) throws -> TestNode {
        let node = try TestNode()
        try agent.usePairedNode(node.url, token: node.token)
        try agent.write("adapters.d/takeout.conf", "[Adapter]\nType=photos\nPath=\(path)\n")
        let r = try agent.run(["run"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("1 photos without GPS"), "IMG_6000 (0/0 in its sidecar) is skipped: \(r.stderr)")
        let stored = try node.items("photos")
        #expect(stored.count == expected.count, "items at the node: \(stored.count)")
        var seen = Set<Expected>()
        for record in stored {
            let item = try #require(record["item"])
            let got = Expected(lat: item["lat"]?.doubleValue ?? .nan, lon: item["lon"]?.doubleValue ?? .nan,
                               takenAt: item["taken_at"]?.stringValue ?? "", altitude: item["altitude_m"]?.doubleValue)
            let names = expected[got]
            #expect(names != nil, "unexpected item \(got) from \(item["file"]?["name"]?.stringValue ?? "?")")
            #expect(names?.contains(item["file"]?["name"]?.stringValue ?? "") == true, "\(got) came from the wrong file")
            #expect(item["time_floating"] == nil)
            seen.insert(got)
        }
        #expect(seen == Set(expected.keys), "missing: \(Set(expected.keys).subtracting(seen))")
        return node
    }

    @Test func anUnpackedTakeoutGivesEveryPhotoItsSidecarsPlaceAndTime() throws {
        let agent = try AgentSandbox()
        let (expected, dir) = try makeTakeout(agent)
        // A damaged sidecar: one line naming it, and the photo's own metadata is used.
        let album = dir + "/tree/Takeout/Google Photos/Trip"
        try FileManager.default.copyItem(atPath: album + "/IMG_5000.jpg", toPath: album + "/IMG_9000.jpg")
        try "{\"title\": \"IMG_9000.jpg\", \"geoData\": {\"latitude\": ".write(toFile: album + "/IMG_9000.jpg.json", atomically: true, encoding: .utf8)
        try agent.write("adapters.d/takeout.conf", "[Adapter]\nType=photos\nPath=\(dir)/tree\n")
        let r = try agent.run(["run", "--dry-run"])
        let lines = r.stderr.split(separator: "\n").filter { $0.contains(album + "/IMG_9000.jpg.json") }
        #expect(lines.count == 1 && lines.first?.contains("not a Takeout sidecar") == true, "\(lines)")
        try FileManager.default.removeItem(atPath: album + "/IMG_9000.jpg")
        try FileManager.default.removeItem(atPath: album + "/IMG_9000.jpg.json")
        _ = try checkNode(scanning: dir + "/tree", in: agent, expected: expected)
    }

    @Test func theTakeoutZipReadInPlaceGivesTheSameItems_andIsNotReadAgainUnchanged() throws {
        let agent = try AgentSandbox()
        let (expected, dir) = try makeTakeout(agent)
        try FileManager.default.removeItem(atPath: dir + "/tree")
        let node = try checkNode(scanning: dir, in: agent, expected: expected)
        let accepted = try node.admin("counts")["endpoints"]?["photos"]?["accepted"]?.intValue
        let traced = try runProcess("/usr/bin/strace", ["-f", "-e", "trace=open,openat", "-o", agent.root + "/trace", agentBinary, "run"], env: agent.env)
        #expect(traced.status == 0, "\(traced.stderr)")
        let opens = try String(contentsOfFile: agent.root + "/trace", encoding: .utf8).split(separator: "\n").filter { $0.contains(".zip") }
        #expect(opens.isEmpty, "an unchanged zip was opened: \(opens.prefix(2))")
        // The zip gone: its photos are tombstoned.
        try FileManager.default.removeItem(atPath: dir + "/takeout-20240601T101010Z-001.zip")
        #expect(try agent.run(["run"]).status == 0)
        let counts = try node.admin("counts")["endpoints"]?["photos"]
        #expect(counts?["accepted"]?.intValue == accepted! + Int64(expected.count))
        #expect(counts?["live"]?.intValue == 0)
    }

    /// The old state: the item the release before inferred offsets sent for this photo (pinned in
    /// CaptureOffsetTests), posted as that release did. The new one: the agent on the same photo.
    @Test func aPhotoAlreadySentKeepsItsKey_andItsTimeGainsTheOffsetItsGPSTimeImplies() throws {
        let agent = try AgentSandbox()
        let node = try TestNode()
        let folder = agent.root + "/photos"
        let script = """
            import importlib.util, sys
            s = importlib.util.spec_from_file_location("t", sys.argv[1]); m = importlib.util.module_from_spec(s); s.loader.exec_module(m)
            open(sys.argv[2] + "/a.jpg", "wb").write(m.jpeg(dto="2021:06:01 12:00:00", gps=(47.3769, 8.5417), gps_time=("2021:06:01", 10, 0, 30)))
            open(sys.argv[2] + "/b.jpg", "wb").write(m.jpeg(dto="2021:06:01 12:00:00", gps=(47.5, 8.75), gps_time=("2021:06:01", 10, 7, 0)))
            """
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let made = try runProcess("/usr/bin/env", ["python3", "-c", script, repoRoot + "/fixtures/photos/make-takeout.py", folder])
        try #require(made.status == 0, "\(made.stderr)")
        let old: JSONValue = ["key": "photo:b6a2ca1f23d17d665a789bf3ba2c8891", "version": "15b7803e61d2cc09", "lat": 47.3769, "lon": 8.5417,
                              "taken_at": "2021-06-01T10:00:30Z", "file": ["name": "a.jpg", "size": 403]]
        try node.ingest("photos", source: "linux-photos", items: [old])
        try agent.usePairedNode(node.url, token: node.token)
        try agent.write("adapters.d/pics.conf", "[Adapter]\nType=photos\nPath=\(folder)\n")
        #expect(try agent.run(["run"]).status == 0)
        let stored = try node.items("photos")
        #expect(stored.count == 2)
        let a = try #require(stored.first { $0["key"]?.stringValue == "photo:b6a2ca1f23d17d665a789bf3ba2c8891" }, "the key changed")
        #expect(a["accepts"]?.intValue == 2, "taken as an update of the old item")
        #expect(a["item"]?["taken_at"]?.stringValue == "2021-06-01T12:00:00+02:00")
        // 1 h 53 min between wall and GPS time is no whole quarter hour: the UTC GPS time, as before.
        let b = try #require(stored.first { $0["key"]?.stringValue != "photo:b6a2ca1f23d17d665a789bf3ba2c8891" })
        #expect(b["item"]?["taken_at"]?.stringValue == "2021-06-01T10:07:00Z")
    }
}
