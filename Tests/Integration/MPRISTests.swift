import Foundation
import IngestCore
import Testing

// Track time passes by the test player's clock (it runs at a rate): the tests wait on the
// Position it reports over D-Bus, and on the agent's books in its state store, not on sleeps.
@Suite("mpris adapter against a private dbus-daemon, a test player, mpv and the test node", .serialized)
struct MPRISTests {
    /// A world with `watch` following one test player at `rate`.
    func watchedPlayer(config: String = "", rate: Double = 20) throws -> (MPRISWorld, TestPlayer) {
        let world = try MPRISWorld(config: config)
        let player = try TestPlayer(on: world.bus)
        try world.startWatch(following: [player])
        try player.send(["cmd": "rate", "rate": .double(rate)])
        return (world, player)
    }

    @Test func watchCountsAPlayOncePastHalfWithPausesExcluded() throws {
        // 300 s track at 20×: it counts at 150 s of track time, 7.5 s of wall time if nothing stops it.
        let (world, player) = try watchedPlayer()
        try player.load("Paused Song", artists: ["Ann", "Bo"], length: 300, trackID: "/t/1")
        try player.waitForPosition(40)
        try player.send(["cmd": "pause"])
        let pausedAt = try #require(player.position())
        #expect(try eventually(10) { try world.timeline(player)?["status"] == "Paused" }, "the agent never saw the pause")
        let booked = try world.timeline(player)?["play"]?["played"]?.doubleValue ?? -1
        #expect(abs(booked - pausedAt) <= 2, "the agent's books say \(booked) s played; the player paused at \(pausedAt) s")
        // The pause itself lasts until the play would have passed the 150 s that count, were paused
        // time counted at 20× from when the agent last looked (its books), and a second more. The
        // checks below measure the agent against the player's own position, so a slow agent cannot pass them.
        let lookedAt = try #require(try world.timeline(player)?["observedAt"]?.doubleValue)
        let wouldCountAt = lookedAt + (150 - booked) / 20 + 1
        #expect(eventually(30) { Date().timeIntervalSince1970 >= wouldCountAt })
        #expect(try world.playCount() == 0, "paused time must not count")
        try player.send(["cmd": "play"])
        #expect(try eventually(15) { try world.playCount() == 1 })
        let countedAt = try #require(player.position())
        #expect(countedAt >= 148, "the play was sent with the player at \(countedAt) s of 300: paused time counted")
        let play = try #require(try world.plays()["Paused Song"]?.first)
        #expect(play["artist"] == "Ann, Bo" && play["album"] == "Test Album" && play["length_s"] == 300)
        #expect(play["player"] == "Hearthloom Test Player")
        #expect((150...175).contains(play.playedSeconds) && play.playedSeconds <= countedAt + 2,
                "sent as it passes 150 s (a loaded machine reads it late), the player at \(countedAt) s: \(play)")
        // ~20 s more, then its end (the next track) sends the final figures under the same key.
        let endedAt = try player.waitForPosition(countedAt + 20)
        try player.load("Next Song", length: 300, trackID: "/t/2")
        #expect(try eventually(10) { try world.plays()["Paused Song"]?.first?.playedSeconds ?? 0 >= endedAt - 1 })
        let final = try #require(try world.plays()["Paused Song"])
        #expect(final.count == 1, "one play, updated: \(final)")
        #expect(final.first?["started_at"] == play["started_at"])
        #expect(((endedAt - 1)...(endedAt + 20)).contains(final.first?.playedSeconds ?? -1), "the player was at \(endedAt) s: \(final)")
        let (result, seconds) = world.stopWatch()
        #expect(result.status == 0 && seconds < 5, "watch stopped with \(result.status) after \(seconds) s: \(result.stderr)")
    }

    /// Waits until the player stopped on its own (the track ended) and the agent's books show it.
    func waitForEnd(of title: String, _ player: TestPlayer, in world: MPRISWorld) throws {
        try player.waitForStatus("Stopped")
        #expect(try eventually(10) {
            let books = try world.timeline(player)
            return books?["status"] == "Stopped" && books?["track"]?["title"]?.stringValue == title
        }, "the agent never saw \(title) end")
    }

    @Test func skipsShortTracksAndPlayersThatQuitEarlyDoNotCountRepeatsDo() throws {
        let (world, player) = try watchedPlayer()
        // Skipped: 20 s played, a seek past 150 s, the remaining 50 s: 70 s of a 200 s track.
        try player.load("Skipped Song", length: 200, trackID: "/t/1")
        try player.waitForPosition(20)
        try player.send(["cmd": "seek", "to": 150])
        try waitForEnd(of: "Skipped Song", player, in: world)                  // it ends at 200 s and stops
        // Too short: a 25 s jingle played to its end.
        try player.load("Jingle", length: 25, trackID: "/t/2")
        try waitForEnd(of: "Jingle", player, in: world)
        // A repeat: a 60 s track on loop counts once per time round.
        try player.send(["cmd": "loop", "on": true])
        try player.load("Looped Song", length: 60, trackID: "/t/3")
        #expect(try eventually(15) { (try world.plays()["Looped Song"]?.count ?? 0) >= 2 })
        try player.send(["cmd": "loop", "on": false])
        try player.send(["cmd": "stop"])
        // Quit mid-track before it counts.
        try player.load("Quitter", length: 300, trackID: "/t/4")
        try player.waitForPosition(40)                                         // 40 s of 300
        try player.send(["cmd": "quit"])
        #expect(try eventually(10) { try world.timeline(player) == nil }, "the agent never saw the player leave")
        let plays = try world.plays()
        #expect(plays["Skipped Song"] == nil, "70 s of 200 s: \(plays["Skipped Song"] ?? [])")
        #expect(plays["Jingle"] == nil)
        #expect(plays["Quitter"] == nil)
        let loops = try #require(plays["Looped Song"])
        #expect(Set(loops.compactMap { $0["started_at"]?.stringValue }).count == loops.count, "each time round has its own start and key")
        #expect(loops.allSatisfy { (30...61).contains($0.playedSeconds) }, "\(loops)")
        #expect(world.stopWatch().result.status == 0)
    }

    @Test func aPlayerThatQuitsAfterThePlayCountedSendsTheFinalFigures() throws {
        let (world, player) = try watchedPlayer()
        try player.load("Counted Then Quit", length: 100, trackID: "/t/1")
        #expect(try eventually(10) { try world.playCount() == 1 })
        let quitAt = try player.waitForPosition(70)                           // ~70 s of 100
        try player.send(["cmd": "quit"])
        #expect(try eventually(10) { (try world.plays()["Counted Then Quit"]?.first?.playedSeconds ?? 0) >= quitAt - 1 })
        let played = try world.plays()["Counted Then Quit"]?.first?.playedSeconds ?? -1
        #expect(((quitAt - 1)...100).contains(played), "the player quit at \(quitAt) s; sent \(played) s")
        #expect(world.stopWatch().result.status == 0)
    }

    @Test func restartingTheAgentMidTrackKeepsThePlay() throws {
        let (world, player) = try watchedPlayer(rate: 10)
        try player.load("Long Song", length: 400, trackID: "/t/1")            // counts at 200 s = 20 s of wall time
        #expect(try eventually(10) { try world.timeline(player)?["play"]?["track"]?["title"] == "Long Song" })
        let stoppedAt = try player.waitForPosition(50)
        let (stopped, seconds) = world.stopWatch()
        #expect(stopped.status == 0 && seconds < 5, "SIGTERM took \(seconds) s")
        #expect(try world.playCount() == 0)
        try player.waitForPosition(stoppedAt + 30)                            // it plays on while no agent watches
        try world.startWatch(following: [player])
        #expect(try eventually(25) { try world.playCount() == 1 })
        let countedAt = try #require(player.position())
        #expect(countedAt >= 198, "the play was sent with the player at \(countedAt) s of 400, before 200 s were played")
        let play = try #require(try world.plays()["Long Song"]?.first)
        #expect((200...225).contains(play.playedSeconds), "one play across the restart: \(play)")
        #expect(world.stopWatch().result.status == 0)
    }

    @Test func wrongTypesHugeStringsAndUntitledTracksDoNotStopTheWatcher() throws {
        let (world, player) = try watchedPlayer(config: "MinPlayedTime=30s\n")
        let huge = String(repeating: "x", count: 200_000)
        try player.send(["cmd": "load", "play": true, "metadata": ["xesam:title": .string("Odd " + huge), "xesam:artist": "Solo Artist",
                                                                  "xesam:album": 42, "mpris:length": "three minutes", "mpris:trackid": "/t/1"]])
        #expect(try eventually(10) { try world.playCount() == 1 })
        try player.send(["cmd": "load", "play": true, "metadata": ["xesam:title": 7, "xesam:artist": ["Nobody"], "mpris:length": 100_000_000]])
        // Untitled: the agent keeps no track for it, so never a play, even well past the 30 s that count.
        #expect(try eventually(10) { try world.timeline(player).map { $0["track"] == nil && $0["status"] == "Playing" } == true })
        try player.waitForPosition(45)
        try player.load("Normal Song", length: 100, trackID: "/t/3")
        #expect(try eventually(10) { try world.plays()["Normal Song"] != nil })
        let odd = try #require(try world.node.items("media").compactMap { $0["item"] }.first { $0["title"]?.stringValue?.hasPrefix("Odd ") == true })
        #expect(odd["title"]?.stringValue?.count == 512)
        #expect(odd["artist"] == "Solo Artist", "a string where the list belongs is one artist")
        #expect(odd["album"] == nil && odd["length_s"] == nil, "wrong types are dropped")
        #expect((30...50).contains(odd.playedSeconds), "unknown length: MinPlayedTime counts")
        #expect(try world.playCount() == 2)
        #expect(world.stopWatch().result.status == 0)
    }

    @Test func theWatcherReconnectsWhenTheBusComesBack() throws {
        let world = try MPRISWorld()
        try world.startWatch()
        world.bus.stop()
        // While the bus is down the watcher keeps trying: one attempt meets a socket that hangs up.
        #expect(world.bus.hangUpOnNextClient(within: 15), "the watcher did not try to reconnect")
        try world.bus.start()
        let watcher = try #require(world.watcher)
        #expect(eventually(20) { world.bus.connectedPIDs().contains(watcher.pid) }, "the watcher did not come back to the bus")
        let player = try TestPlayer(on: world.bus)
        try player.send(["cmd": "rate", "rate": 20])
        try player.load("After The Bus Came Back", length: 100, trackID: "/t/1")
        #expect(try eventually(20) { try world.playCount() == 1 })
        let (result, _) = world.stopWatch()
        #expect(result.status == 0)
        #expect(result.stderr.contains("following again when the session bus returns"), "the loss is logged: \(result.stderr)")
        #expect(result.stderr.contains("the session bus is back"), "the return is logged: \(result.stderr)")
    }

    @Test func ignoredPlayersAreNotCounted() throws {
        let world = try MPRISWorld(config: "IgnorePlayer=firefox*\n")
        let browser = try TestPlayer(on: world.bus, name: "firefox.instance_1_84", identity: "Mozilla Firefox")
        let music = try TestPlayer(on: world.bus, name: "musicbox", identity: "Music Box")
        try world.startWatch(following: [music])                              // one look at the bus saw both
        #expect(try world.timeline(browser) == nil, "the agent keeps no books for an ignored player")
        for player in [browser, music] {
            try player.send(["cmd": "rate", "rate": 20])
            try player.load("From \(player.name)", length: 100, trackID: "/t/1")
        }
        #expect(try eventually(10) { try world.plays()["From musicbox"] != nil })
        try browser.waitForPosition(70)                                       // well past the 50 s that count
        #expect(try world.plays()["From firefox.instance_1_84"] == nil)
        #expect(try world.timeline(browser) == nil)
        #expect(world.stopWatch().result.status == 0)
    }

    @Test func aTimerRunSeesALongTrackAcrossRunsButLeavesPlayersToARunningWatch() throws {
        let world = try MPRISWorld()
        let player = try TestPlayer(on: world.bus, identity: "Podcast Player")
        try player.send(["cmd": "rate", "rate": 100])
        try player.load("Long Mix", length: 3600, trackID: "/t/1")
        // Each run looks once; the player's position, read either side of each run, brackets what it saw.
        let beforeFirst = try #require(player.position())
        let first = try world.run()
        let afterFirst = try #require(player.position())
        #expect(first.status == 0, "\(first.stderr)")
        #expect(try world.playCount() == 0, "one look proves nothing")
        try player.waitForPosition(afterFirst + 300)                          // ~300 s of track, past the 240 s that count
        let beforeSecond = try #require(player.position())
        #expect(try world.run().status == 0)
        let afterSecond = try #require(player.position())
        let play = try #require(try world.plays()["Long Mix"]?.first)
        #expect(((beforeSecond - afterFirst - 1)...(afterSecond - beforeFirst + 1)).contains(play.playedSeconds),
                "the advance between two runs, seen at \(beforeFirst)–\(afterFirst) s and \(beforeSecond)–\(afterSecond) s: \(play)")
        // A short track that starts and ends between runs is not seen.
        try player.load("Short Between Runs", length: 100, trackID: "/t/2")
        try player.waitForStatus("Stopped")                                    // it ended (1 s at 100×)
        #expect(try world.run().status == 0)
        #expect(try world.plays()["Short Between Runs"] == nil)
        #expect(try world.plays()["Long Mix"]?.count == 1)
        // With a watch following the players, `run` leaves them alone.
        try world.startWatch(following: [player])
        let deferred = try world.run(["run", "-v"])
        #expect(deferred.stderr.contains("followed live by watch; not scanned"), "\(deferred.stderr)")
        #expect(world.stopWatch().result.status == 0)
    }

    @Test func mpvWithMprisPluginAgreesWithPlayerctl() throws {
        let world = try MPRISWorld()
        let audio = try world.tone(title: "Harbour Lights", artist: "The Sines", album: "Test Tones", seconds: 120)
        try world.startWatch()
        // 120 s at 20×: counts at 60 s (3 s of wall time), ends at 6 s; mpv then quits.
        let mpv = try world.mpv(audio, speed: 20)
        // playerctl, an independent reader, once mpv has loaded the file.
        var seen = ProcessResult(status: -1, stdout: "", stderr: "")
        #expect(try eventually(10) {
            seen = try runProcess("/usr/bin/playerctl", ["-p", "mpv", "metadata", "--format", "{{title}}|{{artist}}|{{album}}|{{mpris:length}}"], env: world.bus.env)
            return seen.stdout.hasPrefix("Harbour")
        })
        #expect(try eventually(10) { try world.playCount() == 1 })
        _ = mpv.wait()
        #expect(try eventually(10) { (try world.plays()["Harbour Lights"]?.first?.playedSeconds ?? 0) >= 110 })
        let play = try #require(try world.plays()["Harbour Lights"]?.first)
        let fields = seen.stdout.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: "|").map(String.init)
        #expect(fields == ["Harbour Lights", "The Sines", "Test Tones", "120000000"], "playerctl read \(seen.stdout) \(seen.stderr)")
        #expect(play["title"]?.stringValue == fields.first && play["artist"]?.stringValue == fields[safe: 1] && play["album"]?.stringValue == fields[safe: 2])
        #expect(play["length_s"] == 120 && play["player"] == "mpv", "mpv's Identity")
        #expect((110...121).contains(play.playedSeconds), "the whole track at 20×, counted in track time: \(play)")
        #expect(try world.playCount() == 1)
        #expect(world.stopWatch().result.status == 0)
    }
}

extension Array {
    subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}
