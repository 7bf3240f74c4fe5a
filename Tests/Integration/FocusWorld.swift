import Foundation
import IngestCore
import Testing

/// tools/testfocus/focus_test_service.py on a private bus, driven by JSON commands on a FIFO.
final class FocusService {
    private let process: Child
    private let control: String
    private let acks: String
    private var done = 1                               // its "ready" line

    /// - Parameters:
    ///   - system: logind's part, on the world's "system" bus; otherwise the session services.
    ///   - on: what is on from the start (`inhibited`, `active`, `dnd`, `locked`, `idle`).
    init(on world: FocusWorld, system: Bool = false, on: [String] = []) throws {
        let bus = system ? world.system : world.session
        let name = "service-\(UUID().uuidString.prefix(8))"
        control = bus.dir + "/\(name).ctl"; acks = bus.dir + "/\(name).acks"
        guard mkfifo(control, 0o600) == 0 else { throw POSIXError(.EEXIST) }
        process = try Child("/usr/bin/python3", [repoRoot + "/tools/testfocus/focus_test_service.py", "--bus", system ? "system" : "session",
                                                 "--control", control, "--acks", acks] + on.flatMap { ["--on", $0] },
                            env: world.busEnv, captureOutput: false)
        guard eventually(10, { self.ackCount >= 1 }) else { throw FocusServiceError.noAck("ready") }
    }

    enum FocusServiceError: Error { case noAck(String) }

    private var ackCount: Int { ((try? String(contentsOfFile: acks, encoding: .utf8)) ?? "").split(separator: "\n").count }

    /// Turns one thing on or off and waits until its signals are sent.
    func set(_ what: String, _ on: Bool) throws {
        try write(["cmd": "set", "what": .string(what), "on": .bool(on)])
        done += 1
        guard eventually(10, { self.ackCount >= self.done }) else { throw FocusServiceError.noAck(what) }
    }

    /// Leaves the bus at once (a crash or a restart of the service).
    func quit() throws {
        try write(["cmd": "quit"])
        _ = process.wait()
    }

    private func write(_ command: JSONValue) throws {
        let fd = open(control, O_WRONLY)
        defer { close(fd) }
        var line = command.encoded
        line.append(0x0A)
        _ = line.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
    }

    deinit { process.signal(SIGKILL); _ = process.wait() }
}

/// One test's world: a test node, a private session bus and a private "system" bus, and an
/// agent paired with the node whose `focus` adapter is Type=focus.
final class FocusWorld {
    let node: TestNode
    let session: PrivateBus
    let system: PrivateBus
    let agent: AgentSandbox
    private(set) var watcher: Child?
    private var watchesStarted = 0
    /// With `gnome`: a dconf-service on the session bus writing a private dconf database.
    private var dconf: Child?
    private let gnome: Bool

    /// - Parameter serviceDir: the session bus starts services from this folder only.
    init(minSpan: String = "1s", gnome: Bool = false, serviceDir: String? = nil) throws {
        node = try TestNode()
        session = try PrivateBus(serviceDir: serviceDir)
        system = try PrivateBus()
        agent = try AgentSandbox()
        self.gnome = gnome
        try agent.usePairedNode(node.url, token: node.token)
        try agent.write("adapters.d/focus.conf", "[Adapter]\nType=focus\nMinSpan=\(minSpan)\n")
        if gnome {
            try FileManager.default.createDirectory(atPath: agent.root + "/run", withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            dconf = try Child("/usr/libexec/dconf-service", [], env: busEnv, captureOutput: false)
            try #require(eventually(10) { session.connectedPIDs().contains(dconf!.pid) }, "dconf-service is not on the bus")
        }
    }

    /// The buses, and for a GNOME world the dconf folders and `XDG_CURRENT_DESKTOP`.
    var busEnv: [String: String] {
        var env = ["DBUS_SESSION_BUS_ADDRESS": session.address, "DBUS_SYSTEM_BUS_ADDRESS": system.address]
        if gnome {
            env.merge(["XDG_CONFIG_HOME": agent.root + "/xdg-config", "XDG_RUNTIME_DIR": agent.root + "/run",
                       "XDG_CURRENT_DESKTOP": "GNOME", "GSETTINGS_BACKEND": "dconf"]) { _, n in n }
        }
        return env
    }

    /// `gsettings set` through dconf-service, as GNOME's quick settings do.
    func gsettings(_ schema: String, _ key: String, _ value: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let r = try runProcess("/usr/bin/gsettings", ["set", schema, key, value], env: busEnv)
        try #require(r.status == 0, "gsettings: \(r.stderr)", sourceLocation: sourceLocation)
    }
    var env: [String: String] { agent.env.merging(busEnv) { _, n in n } }

    /// Starts `watch` and returns once it has reported READY=1 and is on both buses.
    func startWatch(sourceLocation: SourceLocation = #_sourceLocation) throws {
        watchesStarted += 1
        let notify = try NotifySocket(path: agent.root + "/notify-\(watchesStarted).sock")
        let watcher = try Child(agentBinary, ["watch", "--send-every", "1s"], env: env.merging(["NOTIFY_SOCKET": notify.path]) { _, n in n })
        self.watcher = watcher
        let ready = notify.wait(for: "READY=1", seconds: 15)
        try #require(ready.contains { $0.contains("READY=1") }, "no READY from watch: \(ready)", sourceLocation: sourceLocation)
        try #require(eventually(15) { session.connectedPIDs().contains(watcher.pid) && system.connectedPIDs().contains(watcher.pid) },
                     "watch is not on both buses", sourceLocation: sourceLocation)
    }

    /// SIGTERM; the exit status and what it logged.
    @discardableResult
    func stopWatch() -> ProcessResult {
        guard let watcher else { return ProcessResult(status: -1, stdout: "", stderr: "no watch") }
        watcher.signal(SIGTERM)
        self.watcher = nil
        return watcher.wait()
    }

    /// The spans at the node, in start order.
    func spans(_ mode: String? = nil) throws -> [JSONValue] {
        try node.items("focus").compactMap { $0["item"] }.filter { mode == nil || $0["mode"]?.stringValue == mode }
            .sorted { ($0["start"]?.stringValue ?? "") < ($1["start"]?.stringValue ?? "") }
    }

    /// Waits until the node holds `count` spans of `mode`, the last of them open (`end` null) or closed.
    @discardableResult
    func waitForSpans(_ mode: String, count: Int, lastOpen: Bool, within seconds: Double = 15,
                      sourceLocation: SourceLocation = #_sourceLocation) throws -> [JSONValue] {
        var last: [JSONValue] = []
        let ok = try eventually(seconds) {
            last = try spans(mode)
            return last.count == count && (last.last?["end"] == .null) == lastOpen
        }
        #expect(ok, "wanted \(count) \(mode) spans, the last \(lastOpen ? "open" : "closed"); the node has \(last)", sourceLocation: sourceLocation)
        return last
    }

    deinit {
        watcher?.signal(SIGKILL); _ = watcher?.wait()
        dconf?.signal(SIGTERM); _ = dconf?.wait()
    }
}
