import Foundation
import IngestCore
import Testing

/// A private bus: `dbus-daemon` listening on a socket in its own folder, so it can be stopped
/// and started again at the same address. A session bus by default; a system bus (a config that
/// lets anyone own any name, as geoclue must) for the geoclue adapter.
final class PrivateBus {
    let dir: String
    let system: Bool
    var address: String { "unix:path=\(dir)/bus" }
    private var daemon: Child?
    private let arguments: [String]

    /// - Parameters:
    ///   - system: a system bus (any name may be owned, as geoclue must) instead of a session bus.
    ///   - activation: false for a session bus that starts no service on demand, so a test that
    ///     stops a daemon (the keyring) sees it absent, not started again from /usr/share/dbus-1.
    ///   - serviceDir: a session bus that starts services from this folder only.
    init(system: Bool = false, activation: Bool = true, serviceDir: String? = nil) throws {
        self.system = system
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("bus-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let address = "unix:path=\(dir)/bus"
        if system {
            try """
            <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-BUS Bus Configuration 1.0//EN" "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
            <busconfig><type>system</type><listen>\(address)</listen><auth>EXTERNAL</auth>
              <policy context="default"><allow user="*"/><allow own="*"/><allow send_type="method_call"/><allow send_type="signal"/>
                <allow send_requested_reply="true" send_type="method_return"/><allow send_requested_reply="true" send_type="error"/>
                <allow receive_type="method_call"/><allow receive_type="method_return"/><allow receive_type="error"/><allow receive_type="signal"/>
              </policy></busconfig>
            """.write(toFile: dir + "/bus.conf", atomically: true, encoding: .utf8)
            arguments = ["--config-file=\(dir)/bus.conf"]
        } else if activation && serviceDir == nil {
            arguments = ["--session", "--address=\(address)"]
        } else {
            try """
                <busconfig><type>session</type><listen>unix:path=\(dir)/bus</listen><auth>EXTERNAL</auth>\(serviceDir.map { "<servicedir>\($0)</servicedir>" } ?? "")
                <policy context="default"><allow send_destination="*" eavesdrop="true"/><allow eavesdrop="true"/><allow own="*"/></policy>
                </busconfig>
                """.write(toFile: dir + "/bus.conf", atomically: true, encoding: .utf8)
            arguments = ["--config-file=\(dir)/bus.conf", "--address=\(address)"]
        }
        try start()
    }

    func start() throws {
        try? FileManager.default.removeItem(atPath: dir + "/bus")
        daemon = try Child("/usr/bin/dbus-daemon", arguments + ["--nofork"], captureOutput: false)
        guard eventually(5, { FileManager.default.fileExists(atPath: dir + "/bus") }) else { throw PrivateBusError.didNotStart }
    }

    func stop() {
        daemon?.signal(SIGTERM)
        _ = daemon?.wait()
        daemon = nil
    }

    enum PrivateBusError: Error { case didNotStart }

    var env: [String: String] { [system ? "DBUS_SYSTEM_BUS_ADDRESS" : "DBUS_SESSION_BUS_ADDRESS": address] }

    /// The process ids behind the connections on the bus, as the daemon reports them.
    func connectedPIDs() -> Set<pid_t> {
        guard let r = try? runProcess("/usr/bin/busctl", ["--address=\(address)", "list", "--unique", "--no-legend", "--no-pager"]),
              r.status == 0 else { return [] }
        return Set(r.stdout.split(separator: "\n").compactMap { $0.split(separator: " ").dropFirst().first.flatMap { pid_t($0) } })
    }

    /// One property of a player, as `busctl get-property` prints it (`x 40123456`, `s "Paused"`); nil when it is not there.
    func property(_ name: String, of player: String) -> String? {
        let r = try? runProcess("/usr/bin/busctl", ["--address=\(address)", "get-property", "org.mpris.MediaPlayer2." + player,
                                                    "/org/mpris/MediaPlayer2", "org.mpris.MediaPlayer2.Player", name])
        guard let r, r.status == 0 else { return nil }
        return r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// While the daemon is stopped: a stand-in socket at the bus's address that hangs up on the
    /// first client to connect. True once one did within `seconds` (a client retrying).
    func hangUpOnNextClient(within seconds: Double) -> Bool {
        let path = dir + "/bus"
        unlink(path)
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd); unlink(path) }
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &addr.sun_path) { raw in
            for (i, b) in path.utf8.enumerated() where i < raw.count - 1 { raw[i] = b }
        }
        let bound = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) } }
        guard bound == 0, listen(fd, 4) == 0 else { return false }
        var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&p, 1, Int32(seconds * 1000)) > 0 else { return false }
        let client = accept(fd, nil, nil)
        guard client >= 0 else { return false }
        close(client)
        return true
    }

    deinit { stop(); try? FileManager.default.removeItem(atPath: dir) }
}

/// tools/testplayer/mpris_test_player.py on a private bus, driven by JSON commands on a FIFO.
final class TestPlayer {
    let name: String
    private let bus: PrivateBus
    private let process: Child
    private let control: String
    private let acks: String
    private var done = 1                               // its "ready" line

    init(on bus: PrivateBus, name: String = "hltest", identity: String = "Hearthloom Test Player") throws {
        self.name = name; self.bus = bus
        control = bus.dir + "/\(name).ctl"; acks = bus.dir + "/\(name).acks"
        try? FileManager.default.removeItem(atPath: control)
        try? FileManager.default.removeItem(atPath: acks)
        guard mkfifo(control, 0o600) == 0 else { throw POSIXError(.EEXIST) }
        process = try Child("/usr/bin/python3", [repoRoot + "/tools/testplayer/mpris_test_player.py", "--name", name, "--identity", identity,
                                                 "--control", control, "--acks", acks], env: bus.env, captureOutput: false)
        guard eventually(10, { self.ackCount >= 1 }) else { throw TestPlayerError.noAck("ready") }
    }

    enum TestPlayerError: Error { case noAck(String), position(wanted: Double, last: Double?), status(wanted: String, last: String?) }

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

    /// The track seconds the player reports over D-Bus (its `Position`).
    func position() -> Double? {
        bus.property("Position", of: name).flatMap { Double($0.split(separator: " ").last ?? "") }.map { $0 / 1_000_000 }
    }

    /// `Playing`, `Paused` or `Stopped`, as the player reports it over D-Bus.
    func playbackStatus() -> String? {
        bus.property("PlaybackStatus", of: name)?.split(separator: " ").last.map { $0.trimmingCharacters(in: CharacterSet(charactersIn: "\"")) }
    }

    /// Waits until the player reports `seconds` of track or more: how a test lets track time
    /// pass (the player runs at its rate). Returns the position read.
    @discardableResult
    func waitForPosition(_ seconds: Double, within timeout: Double = 20) throws -> Double {
        var last: Double?
        guard eventually(timeout, { last = position(); return (last ?? -1) >= seconds }), let last else {
            throw TestPlayerError.position(wanted: seconds, last: last)
        }
        return last
    }

    func waitForStatus(_ status: String, within timeout: Double = 20) throws {
        var last: String?
        guard eventually(timeout, { last = playbackStatus(); return last == status }) else { throw TestPlayerError.status(wanted: status, last: last) }
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
    private var notify: NotifySocket?
    private var watchesStarted = 0

    init(config: String = "") throws {
        node = try TestNode()
        bus = try PrivateBus()
        agent = try AgentSandbox()
        try agent.usePairedNode(node.url, token: node.token)
        try agent.write("adapters.d/music.conf", "[Adapter]\nType=mpris\n\(config)")
    }

    var env: [String: String] { agent.env.merging(bus.env) { _, n in n } }

    /// Starts `watch` and returns once it has reported READY=1, is on the bus, and has looked at
    /// each of `players` (its books for them are newer than this start).
    func startWatch(following players: [TestPlayer] = [], sourceLocation: SourceLocation = #_sourceLocation) throws {
        watchesStarted += 1
        let notify = try NotifySocket(path: agent.root + "/notify-\(watchesStarted).sock")
        let started = Date().timeIntervalSince1970
        let watcher = try Child(agentBinary, ["watch", "--send-every", "1s"], env: env.merging(["NOTIFY_SOCKET": notify.path]) { _, n in n })
        self.watcher = watcher; self.notify = notify
        let ready = notify.wait(for: "READY=1", seconds: 15)
        try #require(ready.contains { $0.contains("READY=1") }, "no READY from watch: \(ready)", sourceLocation: sourceLocation)
        try #require(eventually(15) { bus.connectedPIDs().contains(watcher.pid) }, "watch is not on the bus", sourceLocation: sourceLocation)
        for player in players {
            try #require(try eventually(15) { (try timeline(player)?["observedAt"]?.doubleValue ?? 0) >= started },
                         "watch did not look at \(player.name)", sourceLocation: sourceLocation)
        }
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

    /// The agent's books for one player (`status`, `position`, `observedAt`, `track`, `play`) as
    /// its state store holds them; nil when it keeps none.
    func timeline(_ player: TestPlayer) throws -> JSONValue? { try timeline(named: player.name) }

    /// The same by bus name without `org.mpris.MediaPlayer2.` (`mpv.instance4242`).
    func timeline(named name: String) throws -> JSONValue? {
        guard let data = try anchor()["player/" + name] else { return nil }
        return JSONValue.parse(Array(data))
    }

    /// The `music` instance's anchor entries: `player/<name>` timelines and `play/<key>` merged plays.
    func anchor() throws -> [String: Data] {
        guard let store = try StateStore(readOnlyAt: Paths(configDir: agent.config, stateDir: agent.state)) else { return [:] }
        return try store.anchor(for: "music").entries
    }

    /// A tagged Ogg file of a sine tone, made by ffmpeg in the bus's folder. Its name is nothing
    /// like the title: before mpv has read the tags it shows the file name as the title.
    func tone(title: String, artist: String, album: String, seconds: Int) throws -> String {
        let path = bus.dir + "/tone-\(UUID().uuidString.prefix(8)).ogg"
        let made = try runProcess("/usr/bin/ffmpeg", ["-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi", "-i", "sine=frequency=440:duration=\(seconds)",
                                                      "-metadata", "title=\(title)", "-metadata", "artist=\(artist)", "-metadata", "album=\(album)", path])
        try #require(made.status == 0, "ffmpeg: \(made.stderr)")
        return path
    }

    /// mpv with mpv-mpris on the private bus, playing `file` once at `speed` with no sound card.
    /// The first mpv owns `org.mpris.MediaPlayer2.mpv`; others get `mpv.instance<pid>`.
    func mpv(_ file: String, speed: Double) throws -> Child {
        try Child("/usr/bin/mpv", ["--no-config", "--script=/usr/lib/mpv-mpris/mpris.so", "--no-video", "--ao=null", "--speed=\(speed)",
                                   "--no-terminal", file], env: bus.env, captureOutput: false)
    }

    /// Waits until the agent keeps no books on any player or merged play (every player left and
    /// its last plays were committed), then until the outbox is empty (they reached the node).
    func waitUntilEverythingIsSent(sourceLocation: SourceLocation = #_sourceLocation) throws {
        try #require(try eventually(15) { try anchor().isEmpty }, "the agent still keeps \((try? anchor().keys.sorted()) ?? [])", sourceLocation: sourceLocation)
        try #require(try eventually(15) { try agent.outboxCount("media") == 0 }, "plays left in the outbox", sourceLocation: sourceLocation)
    }

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
