import Foundation
import IngestCore
import Testing

/// Incremental derivation end to end: the release binary and the test node end with the same
/// items (keys, versions, fields) whether a month of Records.json points, a Semantic Location
/// History month and an OwnTracks month with region transitions come in one import or split at
/// random times into several exports, added one `run` at a time in a seeded random order.
@Suite("location-history: exports added one by one end as one import", .serialized)
struct LocationHistoryIncrementalTests {
    /// The split: `parts` Records.json exports of a generated month cut at random times, in `dir`;
    /// prints them and the fixtures' exports in a random order.
    static let splitter = """
        import json, random, sys
        seed, parts, src, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
        rng = random.Random(seed)
        locations = json.load(open(src))["locations"]
        cuts = sorted(rng.sample(range(1, len(locations)), parts - 1))
        for n, (a, b) in enumerate(zip([0] + cuts, cuts + [len(locations)])):
            json.dump({"locations": locations[a:b]}, open(f"{out}/part{n}.json", "w"))
        names = [f"part{n}.json" for n in range(parts)] + ["2024_JUNE.json", "2024-06.rec"]
        rng.shuffle(names)
        print(" ".join(names))
        """

    func parts(seed: Int, into dir: String) throws -> [String] {
        let r = try runProcess("/usr/bin/python3", [repoRoot + "/fixtures/location-history/make-fixtures.py", "--records", "30000", dir + "/month.json"])
        try #require(r.status == 0, "make-fixtures.py: \(r.stderr)")
        let s = try runProcess("/usr/bin/python3", ["-c", LocationHistoryIncrementalTests.splitter, String(seed), "4", dir + "/month.json", dir])
        try #require(s.status == 0, "split: \(s.stderr)")
        for name in ["2024_JUNE.json", "2024-06.rec"] {
            try FileManager.default.copyItem(atPath: LocationHistoryTests.fixtures + "/" + name, toPath: dir + "/" + name)
        }
        return s.stdout.split(separator: " ").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
    }

    /// The node's live items: key → version and fields.
    static func final(_ rig: LocationRig) throws -> [String: String] {
        var out: [String: String] = [:]
        for record in try rig.node.items("location") + rig.node.items("motion") where record["deleted"] != .bool(true) {
            guard let key = record["key"]?.stringValue else { continue }
            out[key] = (record["version"]?.stringValue ?? "") + " " + String(decoding: (record["item"] ?? .null).encoded, as: UTF8.self)
        }
        return out
    }

    @Test(arguments: [1, 2])
    func randomSplitsAndOrdersEndAsOneImport(seed: Int) throws {
        let whole = try LocationRig(), split = try LocationRig()
        let names = try parts(seed: seed, into: whole.root)
        for name in names { try FileManager.default.copyItem(atPath: whole.root + "/" + name, toPath: whole.exports + "/" + name) }
        try whole.run()
        for name in names {
            try FileManager.default.copyItem(atPath: whole.root + "/" + name, toPath: split.exports + "/" + name)
            try split.run()
        }
        let expected = try LocationHistoryIncrementalTests.final(whole), got = try LocationHistoryIncrementalTests.final(split)
        #expect(expected.count > 40, "the month and the fixtures make visits and trips")
        #expect(got == expected, "seed \(seed), order \(names): differing \(Set(expected.keys).union(got.keys).filter { expected[$0] != got[$0] }.sorted())")
    }
}
