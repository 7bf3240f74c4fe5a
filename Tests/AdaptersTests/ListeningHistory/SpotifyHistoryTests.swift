import Foundation
import IngestCore
import Testing
@testable import Adapters

/// `SpotifyHistory` and the play rule (`ListenFile`) on both export shapes, from the generated
/// fixtures (fixtures/listening-history/make-fixtures.py, where each shape was read) and
/// hand-written odd rows, each read whole and in 7-byte reads.
struct SpotifyHistoryTests {
    static func fixture(_ name: String) -> [UInt8] {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("fixtures/listening-history/" + name).path
        return Array(FileManager.default.contents(atPath: path) ?? Data())
    }

    /// Every row of `bytes`, and what stopped the read.
    static func rows(_ bytes: [UInt8], chunk: Int = .max) throws -> (rows: [SpotifyHistory.Row], shape: SpotifyHistory.Shape?, failure: FileReadError?) {
        var history = try SpotifyHistory(MemoryByteStream(bytes, chunk: chunk))
        var rows: [SpotifyHistory.Row] = []
        do throws(FileReadError) { while let row = try history.next() { rows.append(row) } } catch { return (rows, history.shape, error) }
        return (rows, history.shape, nil)
    }

    /// The items `bytes` gives under the 30 s rule, and the file's books.
    static func plays(_ bytes: [UInt8], chunk: Int = .max) throws -> (items: [Item], file: ListenFile, failure: FileReadError?) {
        var history = try SpotifyHistory(MemoryByteStream(bytes, chunk: chunk))
        var file = ListenFile(minPlayedMs: 30_000), items: [Item] = []
        do throws(FileReadError) {
            while try file.read(&history, upTo: 2) { items += file.items; file.items = [] }
        } catch { return (items + file.items, file, error) }
        return (items + file.items, file, nil)
    }

    static func field(_ item: Item, _ name: String) -> String? {
        switch item.fields[name] {
        case .string(let s): return s
        case .int(let i): return String(i)
        default: return nil
        }
    }

    @Test(arguments: [Int.max, 7])
    func extendedHistoryKeepsTracksEpisodesAndChaptersOfAtLeast30sAndCountsTheRest(chunk: Int) throws {
        let (items, file, failure) = try SpotifyHistoryTests.plays(SpotifyHistoryTests.fixture("Streaming_History_Audio_2023-2024_0.json"), chunk: chunk)
        #expect(failure == nil && file.bad == 0)
        #expect(items.map { SpotifyHistoryTests.field($0, "title") } == ["Ghost", "Episode 12: Tides", "Zürich – Nacht", "Chapter 3"])
        #expect(file.tally == ListenTally(rows: 7, counted: 4, short: 2, untitled: 1), "0 ms and 12 s are short; all names null is untitled")
        let ghost = items[0]
        #expect(SpotifyHistoryTests.field(ghost, "started_at") == "2024-03-01T08:00:00Z", "ts − ms_played")
        #expect(SpotifyHistoryTests.field(ghost, "ended_at") == "2024-03-01T08:03:30Z")
        #expect(SpotifyHistoryTests.field(ghost, "played_s") == "210")
        #expect(SpotifyHistoryTests.field(ghost, "artist") == "Justin Bieber" && SpotifyHistoryTests.field(ghost, "album") == "Justice")
        #expect(SpotifyHistoryTests.field(ghost, "player") == "Spotify" && ghost.version == nil)
        let episode = items[1]
        #expect(SpotifyHistoryTests.field(episode, "album") == "Sea Stories" && SpotifyHistoryTests.field(episode, "artist") == nil, "the show as album")
        #expect(SpotifyHistoryTests.field(items[2], "played_s") == "30", "exactly 30 s counts")
        #expect(Set(ghost.fields.keys) == ["started_at", "ended_at", "played_s", "title", "artist", "album", "player"], "only node-api.md's media fields")
    }

    @Test(arguments: [Int.max, 7])
    func accountDataMusicAndPodcastFilesReadTheirMinuteTimes(chunk: Int) throws {
        let (music, musicShape, _) = try SpotifyHistoryTests.rows(SpotifyHistoryTests.fixture("StreamingHistory_music_0.json"), chunk: chunk)
        #expect(musicShape == .accountData)
        let end = Double(CivilCalendar.days(year: 2024, month: 3, day: 1) * 86_400 + 8 * 3600 + 3 * 60)
        #expect(music.first == .play(ListenRow(end: end, playedMs: 210_000, title: "Ghost", artist: "Justin Bieber", album: nil)))
        let (podcast, _, _) = try SpotifyHistoryTests.rows(SpotifyHistoryTests.fixture("StreamingHistory_podcast_0.json"), chunk: chunk)
        guard case .play(let episode) = podcast.first else { Issue.record("\(podcast)"); return }
        #expect(episode.title == "Episode 11: Harbours" && episode.album == "Sea Stories" && episode.artist == nil)
    }

    @Test func theSamePlayInTwoExtendedFilesAndInTheAccountDataHasOneKey() throws {
        let keys = try ["Streaming_History_Audio_2023-2024_0.json", "Streaming_History_Audio_2024_1.json", "StreamingHistory_music_0.json"]
            .map { try SpotifyHistoryTests.plays(SpotifyHistoryTests.fixture($0)).items.first { SpotifyHistoryTests.field($0, "title") == "Ghost" }?.key }
        #expect(keys[0] != nil && Set(keys).count == 1, "\(keys)")
        // One second more played is another play, and so is the same play an hour later.
        let row = ListenRow(end: 1_709_280_210, playedMs: 210_000, title: "Ghost", artist: "Justin Bieber", album: "Justice")
        var other = row; other.playedMs += 1000
        var later = row; later.end += 3600
        #expect(Set([row, other, later].map(ListenItem.key)).count == 3)
    }

    @Test func oddRowsAreNamedByLineAndTheRestIsKept() throws {
        let text = """
        [
          {"ts": "2024-01-01T10:00:00Z", "ms_played": 40000, "master_metadata_track_name": "  ", "episode_name": null},
          42,
          {"ts": "yesterday", "ms_played": 40000, "master_metadata_track_name": "A"},
          {"ts": "2024-01-01T10:05:00Z", "ms_played": null, "master_metadata_track_name": "B"},
          {"ts": "2024-01-01T10:09:00Z", "ms_played": "45000", "master_metadata_track_name": "C\\u00e9", "master_metadata_album_artist_name": null}
        ]
        """
        let (items, file, failure) = try SpotifyHistoryTests.plays(Array(text.utf8))
        #expect(failure == nil)
        #expect(items.map { SpotifyHistoryTests.field($0, "title") } == ["Cé"], "a number as a string is read; a blank name is no name")
        #expect(file.tally.untitled == 1 && file.bad == 3)
        #expect(file.firstBad == "3: not an object")
    }

    @Test func aCutOffFileKeepsThePlaysBeforeTheCut() throws {
        let whole = SpotifyHistoryTests.fixture("Streaming_History_Audio_2023-2024_0.json")
        let cut = Array(whole[..<(whole.count * 2 / 3)])
        let (items, _, failure) = try SpotifyHistoryTests.plays(cut, chunk: 7)
        #expect(failure?.description.hasPrefix("cut off at line") == true, "\(String(describing: failure))")
        #expect(items.count >= 2)
    }

    @Test(arguments: ["SearchQueries.json", "Userdata.json"])
    func otherFilesOfTheExportAreNoHistory(name: String) throws {
        var history = try SpotifyHistory(MemoryByteStream(SpotifyHistoryTests.fixture(name), chunk: .max))
        var file = ListenFile(minPlayedMs: 30_000)
        #expect(try file.read(&history, upTo: 10) == false)
        #expect(file.items.isEmpty && file.bad == 0 && (file.notHistory != nil || !history.isArray))
        for junk in ["", "%PDF-1.4", "[]", "   \n"] {
            var other = try SpotifyHistory(MemoryByteStream(Array(junk.utf8), chunk: 3))
            #expect(try other.next() == nil, "\(junk)")
        }
    }

    @Test func accountTimesAreUTCMinutesAndNothingElse() {
        #expect(ListenTime.minute("2020-12-22 16:43") == Double(CivilCalendar.days(year: 2020, month: 12, day: 22) * 86_400 + 16 * 3600 + 43 * 60))
        for bad in ["2020-12-22T16:43", "2020-02-30 10:00", "2020-12-22 24:00", "2020-12-22 16:43:00", ""] { #expect(ListenTime.minute(bad) == nil, "\(bad)") }
    }
}
