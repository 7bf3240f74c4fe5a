import Foundation
import IngestCore
import Testing

/// One test's world for the geoclue adapter: a test node, a private system bus, the real geoclue
/// daemon on it fed by tools/geoclue/nmea_replay.py, maybe the test agent
/// (tools/geoclue/test_agent.py), and an agent whose `geo` adapter is Type=geoclue.
///
/// geoclue runs in namespaces of its own (`unshare -m -n`, as root): a mount namespace where the
/// test's geoclue.conf is bound over /etc/geoclue/geoclue.conf (geoclue 2.6 reads no other file)
/// and a network namespace without a network, so no Wi-Fi or GeoIP location gets in.
final class GeoClueWorld {
    let node: TestNode
    let bus: PrivateBus
    let agent: AgentSandbox
    var dir: String { bus.dir }
    var socket: String { dir + "/nmea.sock" }
    private(set) var geoclue: Child?
    private var replay: Child?
    private var locationAgent: Child?
    private(set) var watch: Child?
    var watchLog: String { agent.root + "/watch.log" }

    /// geoclue.conf as the tests run it: NMEA only; `app` is our [hearthloom-ingest] section.
    static func geoclueConfig(app: String = "allowed=true\nsystem=true\nusers=") -> String {
        "[agent]\nwhitelist=hearthloom-test-agent\n[network-nmea]\nenable=true\n[3g]\nenable=false\n[cdma]\nenable=false\n"
            + "[modem-gps]\nenable=false\n[wifi]\nenable=false\n[compass]\nenable=false\n[hearthloom-ingest]\n\(app)\n"
    }

    init(geoclueConfig: String = GeoClueWorld.geoclueConfig()) throws {
        node = try TestNode()
        bus = try PrivateBus(system: true)
        agent = try AgentSandbox()
        try agent.usePairedNode(node.url, token: node.token)
        try agent.write("adapters.d/geo.conf", "[Adapter]\nType=geoclue\n")
        try geoclueConfig.write(toFile: dir + "/geoclue.conf", atomically: true, encoding: .utf8)
    }

    deinit {
        for child in [watch, locationAgent, geoclue, replay] { child?.signal(SIGKILL); _ = child?.wait() }
    }

    /// Writes a scripted day (fixtures/gpsd/make-day.py `--script`, one fix every `every` seconds,
    /// no warm-up) that ends `endsAgo` seconds before now: geoclue dates NMEA times on today's UTC
    /// date and drops fixes older than the last one, so the replayed times lie in the past.
    func writeDay(minutes: Double, every: Double, endsAgo: Double, script: String = "day") throws -> ExpectedDay {
        let start = (Date().timeIntervalSince1970 - endsAgo - minutes * 60).rounded()
        let r = try runProcess("/usr/bin/python3", [repoRoot + "/fixtures/gpsd/make-day.py", "--out", dir, "--start", String(start),
                                                   "--every", String(every), "--warmup", "0", "--minutes", String(minutes),
                                                   "--script", script])
        try #require(r.status == 0, "make-day.py: \(r.stderr)")
        return try ExpectedDay(contentsOf: dir + "/day.expected.json")
    }

    /// Serves the day on geoclue's NMEA socket; `holdAt`: stop after that many fixes until `resume()`.
    func startReplay(holdAt: Int? = nil) throws {
        replay = try Child("/usr/bin/python3", [repoRoot + "/tools/geoclue/nmea_replay.py", "--socket", socket, "--log", dir + "/day.nmea",
                                                "--status", dir + "/replay.status", "--resume", dir + "/resume"]
                                                + (holdAt.map { ["--hold-at", String($0)] } ?? []), captureOutput: false)
        try #require(eventually(10) { FileManager.default.fileExists(atPath: socket) }, "the replay never listened")
    }

    func resume() { _ = FileManager.default.createFile(atPath: dir + "/resume", contents: Data()) }

    /// The replay's events so far: "connected", "held N", "done N".
    var replayStatus: [String] { ((try? String(contentsOfFile: dir + "/replay.status", encoding: .utf8)) ?? "").split(separator: "\n").map(String.init) }

    /// The real geoclue (`-t 0`: it never exits when idle), once it owns its name on the bus.
    func startGeoclue() throws {
        let script = "mount --bind \"$1\" /etc/geoclue/geoclue.conf && exec /usr/libexec/geoclue -t 0 --nmea-socket \"$2\""
        geoclue = try Child("/usr/bin/unshare", ["-m", "-n", "/bin/sh", "-c", script, "sh", dir + "/geoclue.conf", socket],
                            env: bus.env, captureOutput: false)
        try #require(eventually(10) { self.geoclueOwnsItsName }, "geoclue did not come up on the bus")
    }

    /// Stops geoclue by its pid, as a crash or `systemctl restart geoclue` would.
    func killGeoclue() {
        geoclue?.signal(SIGKILL)
        _ = geoclue?.wait()
        geoclue = nil
    }

    var geoclueOwnsItsName: Bool {
        let r = try? runProcess("/usr/bin/busctl", ["--address=\(bus.address)", "status", "org.freedesktop.GeoClue2", "--no-pager"])
        return r?.status == 0
    }

    /// The test agent, once geoclue has taken it.
    func startLocationAgent() throws {
        let acks = dir + "/agent.acks"
        locationAgent = try Child("/usr/bin/python3", [repoRoot + "/tools/geoclue/test_agent.py", "--acks", acks], env: bus.env, captureOutput: false)
        try #require(eventually(10) { ((try? String(contentsOfFile: acks, encoding: .utf8)) ?? "").contains("registered") },
                     "geoclue did not take the test agent")
    }

    /// `watch`, with its stderr in `watchLog` as it goes.
    func startWatch() throws {
        watch = try childLoggingStderr(to: watchLog, agentBinary, ["watch", "--send-every", "1s"], env: agent.env.merging(bus.env) { _, n in n })
    }

    /// SIGTERM; the exit status and what watch said.
    func stopWatch() -> (status: Int32, log: String) {
        watch?.signal(SIGTERM)
        let status = watch?.wait().status ?? -1
        watch = nil
        return (status, watchSaid)
    }

    var watchSaid: String { (try? String(contentsOfFile: watchLog, encoding: .utf8)) ?? "" }

    func occurrences(of text: String) -> Int { watchSaid.components(separatedBy: text).count - 1 }
}
