import Foundation
import IngestCore
import Testing

// One listen shown by several bus names is one play: real players on a private bus (two mpv,
// mpv with a real playerctld mirroring it) and the test player under KDE Connect's name.
@Suite("mpris: one play whatever shows it, and players that only relay others' plays", .serialized)
struct MPRISOnePlayTests {
    @Test func twoMpvPlayingTheSameFileAtOnceAreOnePlay() throws {
        let world = try MPRISWorld()
        let audio = try world.tone(title: "Twin Lights", artist: "The Sines", album: "Test Tones", seconds: 120)
        try world.startWatch()
        // 120 s at 20× each: both count at 60 s (3 s of wall time) and end at 6 s.
        let first = try world.mpv(audio, speed: 20)
        let second = try world.mpv(audio, speed: 20)
        // Whichever registers first is `mpv`, the other `mpv.instance<pid>`.
        #expect(try eventually(10) { try world.anchor().keys.filter { $0.hasPrefix("player/mpv") }.count == 2 },
                "the agent never followed both: \((try? world.anchor().keys.sorted()) ?? [])")
        _ = first.wait(); _ = second.wait()
        try world.waitUntilEverythingIsSent()
        let plays = try world.node.items("media")
        #expect(plays.count == 1, "one listen, one play: \(plays)")
        let play = try #require(plays.first?["item"])
        #expect(play["title"] == "Twin Lights" && play["artist"] == "The Sines" && play["album"] == "Test Tones" && play["player"] == "mpv")
        #expect((110...121).contains(play.playedSeconds), "the track once, not twice: \(play)")
        #expect(world.stopWatch().result.status == 0)
    }

    @Test func playerctldMirroringMpvIsNeverASourceEvenWithIgnorePlayersCleared() throws {
        let world = try MPRISWorld(config: "IgnorePlayers=\n")
        let playerctld = try Child("/usr/bin/playerctld", [], env: world.bus.env, captureOutput: false)
        defer { playerctld.signal(SIGTERM); _ = playerctld.wait() }
        try #require(eventually(10) { world.bus.connectedPIDs().contains(playerctld.pid) }, "playerctld is not on the bus")
        let audio = try world.tone(title: "Mirror Song", artist: "The Sines", album: "Test Tones", seconds: 120)
        try world.startWatch()
        let mpv = try world.mpv(audio, speed: 20)
        // playerctld shows mpv's playback as its own while the agent counts mpv's.
        #expect(eventually(10) { world.bus.property("PlaybackStatus", of: "playerctld") == "s \"Playing\"" }, "playerctld never mirrored mpv")
        #expect(try eventually(10) { try world.playCount() == 1 })
        #expect(try world.timeline(named: "playerctld") == nil, "the agent keeps no books on playerctld")
        _ = mpv.wait()
        try world.waitUntilEverythingIsSent()
        let plays = try world.node.items("media").compactMap { $0["item"] }
        #expect(plays.count == 1 && plays.first?["player"] == "mpv", "\(plays)")
        #expect((110...121).contains(plays.first?.playedSeconds ?? -1), "\(plays)")
        #expect(world.stopWatch().result.status == 0)
    }

    @Test func aSecondPlayerCountingAfterARestartJoinsThePlayUnderItsKey() throws {
        let world = try MPRISWorld()
        let first = try TestPlayer(on: world.bus, name: "musicbox", identity: "Music Box")
        let second = try TestPlayer(on: world.bus, name: "browser.instance_7", identity: "Browser")
        try world.startWatch(following: [first, second])
        for player in [first, second] { try player.send(["cmd": "rate", "rate": 20]) }
        try first.load("Shared Song", length: 100, trackID: "/box/1")
        try first.waitForPosition(10)
        try second.load("Shared Song", length: 100, trackID: "/browser/9")
        try second.waitForPosition(10)
        try second.send(["cmd": "pause"])                                     // 10 s of 100: not counted
        try first.waitForStatus("Stopped")                                     // played to its end: counted, then ended
        #expect(try eventually(10) { try world.timeline(first)?["status"] == "Stopped" && world.timeline(second)?["status"] == "Paused" })
        #expect(world.stopWatch().result.status == 0)
        let kept = try world.anchor().keys.filter { $0.hasPrefix("play/") }
        #expect(kept.count == 1, "the merged play stays while the second player can still join it: \(kept)")
        // Restarted, the second player plays on and counts: the same play, not a second one.
        try world.startWatch(following: [first, second])
        try second.send(["cmd": "play"])
        #expect(try eventually(15) { try world.timeline(second)?["play"]?["counted"] == true })
        for player in [first, second] { try player.send(["cmd": "quit"]) }
        try world.waitUntilEverythingIsSent()
        let plays = try #require(try world.plays()["Shared Song"])
        #expect(plays.count == 1, "\(plays)")
        #expect(plays.first?["player"] == "Music Box" && (99...101).contains(plays.first?.playedSeconds ?? -1), "\(plays)")
        #expect(world.stopWatch().result.status == 0)
    }

    /// The phone's Spotify as KDE Connect shows it, and a desktop player beside it.
    func phoneAndDesktop(config: String) throws -> (MPRISWorld, phone: TestPlayer, desktop: TestPlayer) {
        let world = try MPRISWorld(config: config)
        let phone = try TestPlayer(on: world.bus, name: "kdeconnect.mpris_000001", identity: "Spotify")
        let desktop = try TestPlayer(on: world.bus, name: "strawberry", identity: "Strawberry")
        try world.startWatch(following: [desktop])
        for (player, title) in [(phone, "On The Phone"), (desktop, "On The Desk")] {
            try player.send(["cmd": "rate", "rate": 20])
            try player.load(title, length: 100, trackID: "/t/1")
        }
        return (world, phone, desktop)
    }

    @Test func kdeConnectsPhonePlayersAreLeftOutByDefault() throws {
        let (world, phone, desktop) = try phoneAndDesktop(config: "")
        #expect(try eventually(10) { try world.plays()["On The Desk"] != nil })
        try phone.waitForPosition(70)                                          // well past the 50 s that count
        #expect(try world.plays()["On The Phone"] == nil)
        #expect(try world.timeline(phone) == nil && world.timeline(desktop) != nil, "the agent keeps books on the desktop player only")
        #expect(world.stopWatch().result.status == 0)
    }

    @Test func clearingIgnorePlayersCountsThePhoneToo() throws {
        let (world, phone, desktop) = try phoneAndDesktop(config: "IgnorePlayers=\n")
        #expect(try eventually(10) { try world.plays()["On The Desk"] != nil && world.plays()["On The Phone"] != nil })
        let phonePlay = try #require(try world.plays()["On The Phone"]?.first)
        #expect(phonePlay["player"] == "Spotify" && (50...100).contains(phonePlay.playedSeconds), "\(phonePlay)")
        #expect(try world.timeline(phone) != nil && world.timeline(desktop) != nil, "both players are followed")
        #expect(world.stopWatch().result.status == 0)
    }
}
