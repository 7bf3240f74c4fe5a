import Foundation
import IngestCore
import Testing
@testable import Adapters

/// What players send that they should not, and what the adapter makes of it.
struct MPRISInputTests {
    @Test func metadataOfTheRightTypes() {
        let track = Track(metadata: ["xesam:title": .string("  Song \n"), "xesam:artist": .array([.string("Ann"), .string("Bo")]),
                                     "xesam:album": .string("LP"), "mpris:length": .int(215_500_000), "mpris:trackid": .string("/t/9")])
        #expect(track == Track(title: "Song", artists: ["Ann", "Bo"], album: "LP", length: 215.5, trackID: "/t/9"))
    }

    @Test func wrongTypesAreForgivenOrDropped() {
        let track = Track(metadata: ["xesam:title": .string("Song"), "xesam:artist": .string("Solo"), "xesam:album": .int(7),
                                     "mpris:length": .string("long"), "mpris:trackid": .string(Track.noTrack)])
        #expect(track == Track(title: "Song", artists: ["Solo"], album: nil, length: nil, trackID: nil))
        #expect(Track(metadata: ["xesam:title": .string("S"), "mpris:length": .uint(60_000_000)])?.length == 60)
        #expect(Track(metadata: ["xesam:title": .string("S"), "mpris:length": .double(6e7)])?.length == 60)
        #expect(Track(metadata: ["xesam:title": .string("S"), "mpris:length": .int(-5)])?.length == nil)
        #expect(Track(metadata: ["xesam:title": .string("S"), "xesam:artist": .array([.int(1), .string("Real")])])?.artists == ["Real"])
    }

    @Test func noTitleIsNoTrack() {
        #expect(Track(metadata: [:]) == nil)
        #expect(Track(metadata: ["xesam:title": .int(3), "xesam:artist": .string("A")]) == nil)
        #expect(Track(metadata: ["xesam:title": .string("   ")]) == nil)
    }

    @Test func hugeStringsAndListsAreCapped() {
        let huge = String(repeating: "ü", count: 100_000)
        let track = Track(metadata: ["xesam:title": .string(huge), "xesam:album": .string(huge),
                                     "xesam:artist": .array(Array(repeating: .string(huge), count: 100))])
        #expect(track?.title.count == Track.maxTextLength && track?.title.hasSuffix("…") == true)
        #expect(track?.album?.count == Track.maxTextLength)
        #expect(track?.artists.count == Track.maxArtists)
        #expect(track?.artists.allSatisfy { $0.count == Track.maxTextLength } == true)
    }

    @Test func theKeyComesFromTheTagsAndTheKeyStartOnly() {
        let play = MergedPlay(track: Track(title: "Song", artists: ["Ann"], album: "LP", length: 300, trackID: "/t/1"), keyStart: 1_790_000_000.7,
                              startedAt: 1_790_000_000.7, endedAt: 1_790_000_160, played: 150.4, player: "mpv Media Player", members: ["mpv": 1_790_000_000.7])
        let a = PlayItem.make(play)
        var later = play
        later.played = 300; later.endedAt = 1_790_000_310; later.startedAt -= 3; later.members["vlc"] = later.startedAt
        let b = PlayItem.make(later)
        #expect(a.key == b.key && a.version != b.version, "the final figures, and a second player's, update the same item")
        var otherPlayer = play
        otherPlayer.player = "VLC"; otherPlayer.members = ["vlc": play.keyStart]; otherPlayer.track.trackID = "/vlc/7"
        #expect(PlayItem.make(otherPlayer).key == a.key, "which player showed it is not part of the key")
        var repeatPlay = play
        repeatPlay.keyStart += 300
        #expect(PlayItem.make(repeatPlay).key != a.key)
        #expect(a.endpoint == .media)
        #expect(a.fields["started_at"] == "2026-09-21T14:13:20Z")
        #expect(a.fields["ended_at"] == "2026-09-21T14:16:00Z")
        #expect(a.fields["played_s"] == 150 && a.fields["length_s"] == 300)
        #expect(a.fields["title"] == "Song" && a.fields["artist"] == "Ann" && a.fields["album"] == "LP" && a.fields["player"] == "mpv Media Player")
        #expect(Set(a.fields.keys) == ["started_at", "ended_at", "played_s", "title", "artist", "album", "length_s", "player"])
        let bare = PlayItem.make(MergedPlay(track: Track(title: "T"), keyStart: 0, startedAt: 0, endedAt: 240, played: 240, player: "X", members: ["x": 0]))
        #expect(Set(bare.fields.keys) == ["started_at", "ended_at", "played_s", "title", "player"], "missing artist, album, length are left out")
    }

    @Test func playerAllowAndDenyLists() {
        let all = PlayerFilter()
        #expect(all.allows(busName: "org.mpris.MediaPlayer2.firefox.instance_1_84", identity: "Mozilla Firefox"))
        let noBrowsers = PlayerFilter(deny: ["firefox", "Chromium*"])
        #expect(!noBrowsers.allows(busName: "org.mpris.MediaPlayer2.firefox.instance_1_84", identity: "Mozilla Firefox"))
        #expect(!noBrowsers.allows(busName: "org.mpris.MediaPlayer2.chromium.instance123", identity: "Chromium"))
        #expect(noBrowsers.allows(busName: "org.mpris.MediaPlayer2.spotify", identity: "Spotify"))
        let onlyMusic = PlayerFilter(allow: ["spotify", "mpv media player"])
        #expect(onlyMusic.allows(busName: "org.mpris.MediaPlayer2.spotify", identity: "Spotify"))
        #expect(onlyMusic.allows(busName: "org.mpris.MediaPlayer2.mpv", identity: "mpv Media Player"), "by Identity")
        #expect(!onlyMusic.allows(busName: "org.mpris.MediaPlayer2.vlc", identity: "VLC media player"))
    }

    @Test func relaysAreLeftOutByTheirWholeBusNameAndPlayerctldAlways() {
        let defaults = PlayerFilter(denyBusNames: ["*.playerctld", "*.kdeconnect.*"])
        #expect(!defaults.allows(busName: "org.mpris.MediaPlayer2.kdeconnect.mpris_000001", identity: "Spotify"), "the phone's Spotify")
        #expect(!defaults.allows(busName: "org.mpris.MediaPlayer2.playerctld", identity: "mpv"), "playerctld shows the active player's Identity")
        #expect(defaults.allows(busName: "org.mpris.MediaPlayer2.mpv.instance4242", identity: "mpv"))
        #expect(defaults.allows(busName: "org.mpris.MediaPlayer2.kdeconnectish", identity: "K"))
        let cleared = PlayerFilter()
        #expect(cleared.allows(busName: "org.mpris.MediaPlayer2.kdeconnect.mpris_000001", identity: "Spotify"))
        #expect(!cleared.allows(busName: "org.mpris.MediaPlayer2.playerctld", identity: "mpv"), "playerctld only mirrors: never counted")
        #expect(!PlayerFilter(allow: ["playerctld", "mpv"]).allows(busName: "org.mpris.MediaPlayer2.playerctld", identity: "mpv"))
        let both = PlayerFilter(allow: ["*"], deny: ["firefox"], denyBusNames: ["org.mpris.MediaPlayer2.chromium.*"])
        #expect(!both.allows(busName: "org.mpris.MediaPlayer2.firefox.instance_1_84", identity: "Mozilla Firefox"))
        #expect(!both.allows(busName: "org.mpris.MediaPlayer2.chromium.instance99", identity: "Chromium"))
        #expect(both.allows(busName: "org.mpris.MediaPlayer2.spotify", identity: "Spotify"))
    }
}

struct MPRISConfigTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    func load(_ text: String) throws(ConfigError) -> MPRISAdapter {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("mpris-conf-\(UUID().uuidString.prefix(8))")
        try? FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("music.conf").path
        try? text.write(toFile: file, atomically: true, encoding: .utf8)
        let config = try AdapterRegistry([MPRISAdapter.self]).loadConfig(file: file)
        return try MPRISAdapter(config: config)
    }

    @Test func keysBecomeRules() throws {
        let defaults = try load("[Adapter]\nType=mpris\n")
        #expect(defaults.rules == PlayRules() && defaults.filter == PlayerFilter(denyBusNames: ["*.playerctld", "*.kdeconnect.*"]))
        let custom = try load("[Adapter]\nType=mpris\nMinPlayedPercent=80\nMinPlayedTime=2min\nMinTrackLength=1min\nPlayer=spotify\nIgnorePlayer=firefox*\nIgnorePlayer=chromium*\nIgnorePlayers=*.relay\n")
        #expect(custom.rules == PlayRules(minPlayedFraction: 0.8, minPlayedTime: 120, minTrackLength: 60))
        #expect(custom.filter == PlayerFilter(allow: ["spotify"], deny: ["firefox*", "chromium*"], denyBusNames: ["*.relay"]))
        #expect(try load("[Adapter]\nType=mpris\nIgnorePlayers=\n").filter == PlayerFilter(), "an empty value clears the default")
        #expect(try load("[Adapter]\nType=mpris\nIgnorePlayers=\nIgnorePlayers=*.playerctld\n").filter == PlayerFilter(denyBusNames: ["*.playerctld"]))
    }

    @Test func badValuesNameTheKey() {
        for (text, key) in [("MinPlayedPercent=0", "MinPlayedPercent"), ("MinPlayedPercent=150", "MinPlayedPercent"),
                            ("MinPlayedTime=0", "MinPlayedTime"), ("MinTrackLength=soon", "MinTrackLength"), ("Players=x", "Players")] {
            let error = #expect(throws: ConfigError.self) { try load("[Adapter]\nType=mpris\n\(text)\n") }
            #expect(error?.description.contains(key) == true, "\(text): \(String(describing: error))")
        }
    }
}
