import Foundation
import IngestCore
import Testing

/// The listening-history adapter end to end: the generated Spotify export
/// (fixtures/listening-history/make-fixtures.py: both shapes, the export's other files, its zip)
/// in a temp folder, the real binary, the real test node. The expected plays are the
/// generator's expected.json.
@Suite("listening-history adapter against the test node", .serialized)
struct ListeningHistoryTests {
    static let fixtures = repoRoot + "/fixtures/listening-history"
    static let export = ["Streaming_History_Audio_2023-2024_0.json", "Streaming_History_Audio_2024_1.json", "StreamingHistory_music_0.json",
                         "StreamingHistory_podcast_0.json", "SearchQueries.json", "Userdata.json", "my_spotify_data.zip"]

    /// A play as compared: the fields a user sees.
    static func play(_ item: JSONValue) -> [String: String] {
        var out: [String: String] = [:]
        for name in ["title", "artist", "album", "started_at", "ended_at", "player"] { if let v = item[name]?.stringValue { out[name] = v } }
        out["played_s"] = item["played_s"]?.intValue.map(String.init)
        return out
    }

    @Test func aFolderGivesEveryPlayOnceWithItsExactTimesAndNothingElse() throws {
        let rig = try LocationRig.listening()
        for name in ListeningHistoryTests.export { try rig.copy(name) }
        let r = try rig.run()
        #expect(!r.stderr.contains("warn") && !r.stderr.contains("<4>"), "the export's other files pass silently: \(r.stderr)")
        let expected = try #require(JSONValue.parse(Array(try Data(contentsOf: URL(fileURLWithPath: ListeningHistoryTests.fixtures + "/expected.json")))))
        let want = (expected.arrayValue ?? []).map { e -> [String: String] in
            var p = ListeningHistoryTests.play(e); p["player"] = "Spotify"; return p
        }
        #expect(try rig.plays().map(ListeningHistoryTests.play) == want)
        let counts = try rig.counts("media")
        #expect(counts.accepted == 8 && counts.live == 8, "Ghost is in three files, under one key: \(counts)")
        for item in try rig.plays() {
            guard case .object(let members) = item else { Issue.record("\(item)"); continue }
            let fields = Set(members.keys)
            #expect(fields.isSubset(of: ["key", "started_at", "ended_at", "played_s", "title", "artist", "album", "length_s", "player"]), "\(fields)")
        }
    }

    @Test func filesNamedOneByOneAndTheZipAloneGiveTheirOwnPlays() throws {
        let rig = try LocationRig.listening()
        for name in ListeningHistoryTests.export { try rig.copy(name) }
        try rig.agent.write("adapters.d/lh.conf", "[Adapter]\nType=listening-history\nPath=\(rig.exports)/Streaming_History_Audio_2024_1.json\n"
                            + "Path=\(rig.exports)/Streaming_History_Audio_2023-2024_0.json\n")
        try rig.run()
        let titles = try rig.plays().map { $0["title"]?.stringValue ?? "" }
        #expect(titles == ["Ghost", "Episode 12: Tides", "Zürich – Nacht", "Chapter 3", "Heroes - 2017 Remaster"])
        let ghost = try #require(try rig.plays().first)
        #expect(ListeningHistoryTests.play(ghost) == ["title": "Ghost", "artist": "Justin Bieber", "album": "Justice", "started_at": "2024-03-01T08:00:00Z",
                                                       "ended_at": "2024-03-01T08:03:30Z", "played_s": "210", "player": "Spotify"], "ts − ms_played, to the second")

        let zipOnly = try LocationRig.listening()
        try zipOnly.copy("my_spotify_data.zip")
        try zipOnly.agent.write("adapters.d/lh.conf", "[Adapter]\nType=listening-history\nPath=\(zipOnly.exports)/my_spotify_data.zip\n")
        let r = try zipOnly.run()
        #expect(try zipOnly.plays().map(ListeningHistoryTests.play) == [["title": "Ghost Town", "artist": "Kanye West", "album": "ye",
            "started_at": "2023-01-26T08:00:10Z", "ended_at": "2023-01-26T08:03:30Z", "played_s": "200", "player": "Spotify"]])
        #expect(!r.stderr.contains("SearchQueries") && !r.stderr.contains("ReadMeFirst"), "\(r.stderr)")
    }

    @Test func unchangedRunsMovesRenamesAndResyncSendNothingNew() throws {
        let rig = try LocationRig.listening()
        for name in ListeningHistoryTests.export { try rig.copy(name) }
        try rig.run()
        let before = try rig.counts("media")
        let again = try rig.agent.run(["run", "--dry-run"])
        #expect(again.status == 0 && again.stdout.isEmpty, "an unchanged export is not read again: \(again.stdout)")
        try FileManager.default.createDirectory(atPath: rig.exports + "/2024", withIntermediateDirectories: true)
        try FileManager.default.moveItem(atPath: rig.exports + "/Streaming_History_Audio_2024_1.json", toPath: rig.exports + "/2024/renamed.json")
        try rig.run()
        let resync = try rig.agent.run(["resync", "lh"])
        #expect(resync.status == 0, "\(resync.stderr)")
        let after = try rig.counts("media")
        #expect(after.accepted == before.accepted && after.live == before.live, "\(before) → \(after)")
        #expect(after.receipts > before.receipts, "the moved file and the resync were sent, as duplicates")
        #expect(try rig.node.items("media").allSatisfy { $0["deleted"] != .bool(true) }, "a moved export takes no play back")
    }

    @Test func aCutOffFileGivesOneLineNamingItAndThePlaysBeforeTheCutCount() throws {
        let rig = try LocationRig.listening()
        let whole = try Data(contentsOf: URL(fileURLWithPath: ListeningHistoryTests.fixtures + "/Streaming_History_Audio_2023-2024_0.json"))
        let text = String(decoding: whole, as: UTF8.self)
        let cut = try #require(text.range(of: "\"Zürich"))       // inside the sixth row, after the episode
        try Data(text[..<cut.lowerBound].utf8).write(to: URL(fileURLWithPath: rig.exports + "/Streaming_History_Audio_2023-2024_0.json"))
        let r = try rig.run()
        let lines = r.stderr.split(separator: "\n").filter { $0.contains("Streaming_History_Audio_2023-2024_0.json") }
        #expect(lines.count == 1, "\(r.stderr)")
        #expect(lines.first?.contains("cut off at line") == true && lines.first?.contains("kept the 2 plays read") == true, "\(r.stderr)")
        #expect(try rig.plays().map { $0["title"]?.stringValue ?? "" } == ["Ghost", "Episode 12: Tides"])
    }
}

/// The plays at the node, on the location-history tests' rig.
extension LocationRig {
    static func listening() throws -> LocationRig { try LocationRig(type: "listening-history", fixtures: ListeningHistoryTests.fixtures) }

    /// The stored plays, by start.
    func plays() throws -> [JSONValue] {
        try node.items("media").compactMap { record -> JSONValue? in
            #expect(record["source"] == "linux-listening-history")
            return record["item"]
        }.sorted { ($0["started_at"]?.stringValue ?? "") < ($1["started_at"]?.stringValue ?? "") }
    }
}
