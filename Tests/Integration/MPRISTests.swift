import Foundation
import IngestCore
import Testing

/// A private session bus: `dbus-daemon --session` listening on a socket in its own folder, so
/// it can be stopped and started again at the same address.
final class PrivateBus {
    let dir: String
    var address: String { "unix:path=\(dir)/bus" }
    private var daemon: Child?

    init() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("bus-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        try start()
    }

    func start() throws {
        try? FileManager.default.removeItem(atPath: dir + "/bus")
        daemon = try Child("/usr/bin/dbus-daemon", ["--session", "--nofork", "--address=\(address)"], captureOutput: false)
        guard eventually(5, { FileManager.default.fileExists(atPath: dir + "/bus") }) else { throw PrivateBusError.didNotStart }
    }

    func stop() {
        daemon?.signal(SIGTERM)
        _ = daemon?.wait()
        daemon = nil
    }

    enum PrivateBusError: Error { case didNotStart }

    var env: [String: String] { ["DBUS_SESSION_BUS_ADDRESS": address] }

    deinit { stop(); try? FileManager.default.removeItem(atPath: dir) }
}

/// tools/testplayer/mpris_test_player.py on a private bus, driven by JSON commands on a FIFO.
final class TestPlayer {
    let name: String
    private let process: Child
    private let control: String
    private let acks: String
    private var done = 1                               // its "ready" line

    init(on bus: PrivateBus, name: String = "hltest", identity: String = "Hearthloom Test Player") throws {
        self.name = name
        control = bus.dir + "/\(name).ctl"; acks = bus.dir + "/\(name).acks"
        try? FileManager.default.removeItem(atPath: control)
        try? FileManager.default.removeItem(atPath: acks)
        guard mkfifo(control, 0o600) == 0 else { throw POSIXError(.EEXIST) }
        process = try Child("/usr/bin/python3", [repoRoot + "/tools/testplayer/mpris_test_player.py", "--name", name, "--identity", identity,
                                                 "--control", control, "--acks", acks], env: bus.env, captureOutput: false)
        guard eventually(10, { self.ackCount >= 1 }) else { throw TestPlayerError.noAck("ready") }
    }

    enum TestPlayerError: Error { case noAck(String) }

    private var ackCount: Int { ((try? String(contentsOfFile: acks, encoding: .utf8)) ?? "").split(separator: "\n").count }

    /// Sends one command and waits until the player has done it.
    func send(_ command: JSONValue) throws {
        let fd = open(control, O_WRONLY)
        var line = command.encoded
        line.append(0x0A)
        _ = line.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
        if command["cmd"]?.stringValue == "quit" { _ = process.wait(); return }
        done += 1
        guard eventually(10, { self.ackCount >= self.done }) else { throw TestPlayerError.noAck(command["cmd"]?.stringValue ?? "?") }
    }

    func load(_ title: String, artists: [String] = ["The Testers"], album: String? = "Test Album", length: Double?, trackID: String, play: Bool = true) throws {
        var metadata: [String: JSONValue] = ["xesam:title": .string(title), "xesam:artist": .array(artists.map { .string($0) }),
                                             "mpris:trackid": .string(trackID)]
        if let album { metadata["xesam:album"] = .string(album) }
        if let length { metadata["mpris:length"] = .int(Int64(length * 1_000_000)) }
        try send(["cmd": "load", "metadata": .object(metadata), "play": .bool(play)])
    }

    deinit { process.signal(SIGKILL); _ = process.wait() }
}

/// One test's world: a test node, a private bus, an agent paired with the node whose
/// `music` adapter is Type=mpris.
final class MPRISWorld {
    let node: TestNode
    let bus: PrivateBus
    let agent: AgentSandbox
    private(set) var watcher: Child?

    init(config: String = "") throws {
        node = try TestNode()
        bus = try PrivateBus()
        agent = try AgentSandbox()
        try agent.usePairedNode(node.url, token: node.token)
        try agent.write("adapters.d/music.conf", "[Adapter]\nType=mpris\n\(config)")
    }

    var env: [String: String] { agent.env.merging(bus.env) { _, n in n } }

    func startWatch() throws {
        watcher = try Child(agentBinary, ["watch", "--send-every", "1s"], env: env)
        Thread.sleep(forTimeInterval: 0.5)                   // its first look at the bus
    }

    /// SIGTERM; returns the exit status and how long it took.
    @discardableResult
    func stopWatch() -> (result: ProcessResult, seconds: Double) {
        guard let watcher else { return (ProcessResult(status: -1, stdout: "", stderr: "no watch"), 0) }
        let start = Date()
        watcher.signal(SIGTERM)
        let result = watcher.wait()
        self.watcher = nil
        return (result, Date().timeIntervalSince(start))
    }

    func run(_ args: [String] = ["run"]) throws -> ProcessResult { try agent.run(args, env: bus.env) }

    /// The plays at the node, by title (several plays of one title in start order).
    func plays() throws -> [String: [JSONValue]] {
        var byTitle: [String: [JSONValue]] = [:]
        for record in try node.items("media") {
            guard let item = record["item"], let title = item["title"]?.stringValue else { continue }
            byTitle[title, default: []].append(item)
        }
        return byTitle.mapValues { $0.sorted { ($0["started_at"]?.stringValue ?? "") < ($1["started_at"]?.stringValue ?? "") } }
    }

    func playCount() throws -> Int { try plays().values.reduce(0) { $0 + $1.count } }

    deinit { watcher?.signal(SIGKILL); _ = watcher?.wait() }
}

extension JSONValue {
    var playedSeconds: Double { self["played_s"]?.doubleValue ?? -1 }
}

@Suite("mpris adapter against a private dbus-daemon, a test player, mpv and the test node", .serialized)
struct MPRISTests {
    /// A world with `watch` running and one test player at `rate`.
    func watchedPlayer(config: String = "", rate: Double = 20) throws -> (MPRISWorld, TestPlayer) {
        let world = try MPRISWorld(config: config)
        let player = try TestPlayer(on: world.bus)
        try world.startWatch()
        try player.send(["cmd": "rate", "rate": .double(rate)])
        return (world, player)
    }

    @Test func watchCountsAPlayOncePastHalfWithPausesExcluded() throws {
        // 300 s track at 20×: it counts at 150 s of track time, 7.5 s of wall time if nothing stops it.
        let (world, player) = try watchedPlayer()
        try player.load("Paused Song", artists: ["Ann", "Bo"], length: 300, trackID: "/t/1")
        Thread.sleep(forTimeInterval: 2)                                       // ~40 s played
        try player.send(["cmd": "pause"])
        Thread.sleep(forTimeInterval: 6)                                       // would be 120 s more at 20×
        #expect(try world.playCount() == 0, "paused time must not count")
        try player.send(["cmd": "play"])
        #expect(try eventually(15) { try world.playCount() == 1 })
        let play = try #require(try world.plays()["Paused Song"]?.first)
        Thread.sleep(forTimeInterval: 1)                                       // ~20 s more, then the next track
        #expect(play["artist"] == "Ann, Bo" && play["album"] == "Test Album" && play["length_s"] == 300)
        #expect(play["player"] == "Hearthloom Test Player")
        #expect((150...175).contains(play.playedSeconds), "sent as it passes 150 s (a loaded machine reads it late): \(play)")
        // Its end (the next track) sends the final figures under the same key.
        try player.load("Next Song", length: 300, trackID: "/t/2")
        #expect(try eventually(10) { try world.plays()["Paused Song"]?.first?.playedSeconds ?? 0 >= 165 })
        let final = try #require(try world.plays()["Paused Song"])
        #expect(final.count == 1, "one play, updated: \(final)")
        #expect(final.first?["started_at"] == play["started_at"])
        let (result, seconds) = world.stopWatch()
        #expect(result.status == 0 && seconds < 5, "watch stopped with \(result.status) after \(seconds) s: \(result.stderr)")
    }

    @Test func skipsShortTracksAndPlayersThatQuitEarlyDoNotCountRepeatsDo() throws {
        let (world, player) = try watchedPlayer()
        // Skipped: 20 s played, a seek past 150 s, the remaining 50 s: 70 s of a 200 s track.
        try player.load("Skipped Song", length: 200, trackID: "/t/1")
        Thread.sleep(forTimeInterval: 1)
        try player.send(["cmd": "seek", "to": 150])
        Thread.sleep(forTimeInterval: 3.5)                                     // it ends at 200 s and stops
        // Too short: a 25 s jingle played to its end.
        try player.load("Jingle", length: 25, trackID: "/t/2")
        Thread.sleep(forTimeInterval: 2)
        // A repeat: a 60 s track on loop counts once per time round.
        try player.send(["cmd": "loop", "on": true])
        try player.load("Looped Song", length: 60, trackID: "/t/3")
        #expect(try eventually(15) { (try world.plays()["Looped Song"]?.count ?? 0) >= 2 })
        try player.send(["cmd": "loop", "on": false])
        try player.send(["cmd": "stop"])
        // Quit mid-track before it counts.
        try player.load("Quitter", length: 300, trackID: "/t/4")
        Thread.sleep(forTimeInterval: 2)                                       // 40 s of 300
        try player.send(["cmd": "quit"])
        Thread.sleep(forTimeInterval: 2)
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
        Thread.sleep(forTimeInterval: 1)                                       // ~70 s of 100
        try player.send(["cmd": "quit"])
        #expect(try eventually(10) { (try world.plays()["Counted Then Quit"]?.first?.playedSeconds ?? 0) >= 65 })
        #expect(try world.plays()["Counted Then Quit"]?.first.map { (65...100).contains($0.playedSeconds) } == true)
        #expect(world.stopWatch().result.status == 0)
    }

    @Test func restartingTheAgentMidTrackKeepsThePlay() throws {
        let (world, player) = try watchedPlayer(rate: 10)
        try player.load("Long Song", length: 400, trackID: "/t/1")            // counts at 200 s = 20 s of wall time
        Thread.sleep(forTimeInterval: 5)
        let (stopped, seconds) = world.stopWatch()
        #expect(stopped.status == 0 && seconds < 5, "SIGTERM took \(seconds) s")
        #expect(try world.playCount() == 0)
        Thread.sleep(forTimeInterval: 3)                                       // it plays on while no agent watches
        try world.startWatch()
        #expect(try eventually(25) { try world.playCount() == 1 })
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
        Thread.sleep(forTimeInterval: 4)                                       // untitled: never a play
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
        Thread.sleep(forTimeInterval: 1.5)
        try world.bus.start()
        let player = try TestPlayer(on: world.bus)
        try player.send(["cmd": "rate", "rate": 20])
        try player.load("After The Bus Came Back", length: 100, trackID: "/t/1")
        #expect(try eventually(20) { try world.playCount() == 1 })
        let (result, _) = world.stopWatch()
        #expect(result.status == 0)
        #expect(result.stderr.contains("session bus"), "the loss is logged: \(result.stderr)")
    }

    @Test func ignoredPlayersAreNotCounted() throws {
        let world = try MPRISWorld(config: "IgnorePlayer=firefox*\n")
        let browser = try TestPlayer(on: world.bus, name: "firefox.instance_1_84", identity: "Mozilla Firefox")
        let music = try TestPlayer(on: world.bus, name: "musicbox", identity: "Music Box")
        try world.startWatch()
        for player in [browser, music] {
            try player.send(["cmd": "rate", "rate": 20])
            try player.load("From \(player.name)", length: 100, trackID: "/t/1")
        }
        #expect(try eventually(10) { try world.plays()["From musicbox"] != nil })
        Thread.sleep(forTimeInterval: 1)
        #expect(try world.plays()["From firefox.instance_1_84"] == nil)
        #expect(world.stopWatch().result.status == 0)
    }

    @Test func aTimerRunSeesALongTrackAcrossRunsButLeavesPlayersToARunningWatch() throws {
        let world = try MPRISWorld()
        let player = try TestPlayer(on: world.bus, identity: "Podcast Player")
        try player.send(["cmd": "rate", "rate": 100])
        try player.load("Long Mix", length: 3600, trackID: "/t/1")
        let first = try world.run()
        #expect(first.status == 0, "\(first.stderr)")
        #expect(try world.playCount() == 0, "one look proves nothing")
        Thread.sleep(forTimeInterval: 3)                                       // ~300 s of track
        #expect(try world.run().status == 0)
        let play = try #require(try world.plays()["Long Mix"]?.first)
        #expect((240...420).contains(play.playedSeconds), "the advance between two runs: \(play)")
        // A short track that starts and ends between runs is not seen.
        try player.load("Short Between Runs", length: 100, trackID: "/t/2")
        Thread.sleep(forTimeInterval: 1.5)
        try player.send(["cmd": "stop"])
        #expect(try world.run().status == 0)
        #expect(try world.plays()["Short Between Runs"] == nil)
        #expect(try world.plays()["Long Mix"]?.count == 1)
        // With a watch following the players, `run` leaves them alone.
        try world.startWatch()
        let deferred = try world.run(["run", "-v"])
        #expect(deferred.stderr.contains("followed live by watch; not scanned"), "\(deferred.stderr)")
        #expect(world.stopWatch().result.status == 0)
    }

    @Test func mpvWithMprisPluginAgreesWithPlayerctl() throws {
        let world = try MPRISWorld()
        let audio = world.bus.dir + "/tagged.ogg"
        let made = try runProcess("/usr/bin/ffmpeg", ["-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi", "-i", "sine=frequency=440:duration=120",
                                                      "-metadata", "title=Harbour Lights", "-metadata", "artist=The Sines", "-metadata", "album=Test Tones",
                                                      audio])
        try #require(made.status == 0, "ffmpeg: \(made.stderr)")
        try world.startWatch()
        // 120 s at 20×: counts at 60 s (3 s of wall time), ends at 6 s; mpv then quits.
        let mpv = try Child("/usr/bin/mpv", ["--no-config", "--script=/usr/lib/mpv-mpris/mpris.so", "--no-video", "--ao=null", "--speed=20",
                                             "--no-terminal", audio], env: world.bus.env, captureOutput: false)
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
