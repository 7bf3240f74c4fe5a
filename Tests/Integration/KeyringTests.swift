import Foundation
import IngestCore
import Testing

/// A real gnome-keyring-daemon (secrets component) on a private session bus that starts nothing
/// on demand, its login keyring created and unlocked with a test password given on stdin, in a
/// home of its own.
final class TestKeyring {
    let bus: PrivateBus
    let home: String
    private var daemon: Child?

    init() throws {
        bus = try PrivateBus(activation: false)
        home = bus.dir + "/home"
        for dir in [home, home + "/data", home + "/run"] {
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        }
        daemon = try Child("/usr/bin/gnome-keyring-daemon", ["--foreground", "--unlock", "--components=secrets"],
                           env: daemonEnv, stdin: "test-password", captureOutput: false)
        guard eventually(10, { self.defaultCollection() != nil }) else { throw TestKeyringError.didNotStart }
    }

    enum TestKeyringError: Error { case didNotStart }

    private var daemonEnv: [String: String] {
        bus.env.merging(["HOME": home, "XDG_DATA_HOME": home + "/data", "XDG_RUNTIME_DIR": home + "/run"]) { _, n in n }
    }

    /// What the agent (and secret-tool, gdbus) need to reach the keyring.
    var env: [String: String] { bus.env }

    /// The collection the `default` alias points at, once the daemon serves it.
    func defaultCollection() -> String? {
        guard let r = try? gdbus("/org/freedesktop/secrets", "org.freedesktop.Secret.Service.ReadAlias", ["default"]), r.status == 0,
              let path = r.stdout.split(separator: "'").dropFirst().first, path != "/" else { return nil }
        return String(path)
    }

    func lock() throws {
        let collection = try #require(defaultCollection())
        #expect(try gdbus("/org/freedesktop/secrets", "org.freedesktop.Secret.Service.Lock", ["['\(collection)']"]).status == 0)
        #expect(try gdbus(collection, "org.freedesktop.DBus.Properties.Get", ["org.freedesktop.Secret.Collection", "Locked"]).stdout.contains("true"))
    }

    /// `secret-tool lookup`: what a user would see in the keyring.
    func lookup(node: String, kind: String) throws -> String? {
        let r = try runProcess("/usr/bin/secret-tool", ["lookup", "application", "hearthloom-ingest", "node", node, "kind", kind], env: env)
        return r.status == 0 ? r.stdout : nil
    }

    func stop() {
        daemon?.signal(SIGTERM)
        _ = daemon?.wait()
        daemon = nil
    }

    private func gdbus(_ path: String, _ method: String, _ arguments: [String]) throws -> ProcessResult {
        try runProcess("/usr/bin/gdbus", ["call", "--session", "--dest", "org.freedesktop.secrets", "--object-path", path, "--method", method] + arguments,
                       env: env)
    }

    deinit { stop() }
}

@Suite("desktop keyring", .serialized)
struct KeyringTests {
    /// Pairs `agent` (TokenStore=keyring) with `node`; the token file it reads is outside the config dir.
    func pair(_ agent: AgentSandbox, _ node: TestNode, _ keyring: TestKeyring) throws {
        agent.secrets.append(node.token)
        try agent.write("node.conf", "[Node]\nTokenStore=keyring\n", mode: 0o600)
        let tokenFile = agent.root + "/pasted-token"
        try (node.token + "\n").write(toFile: tokenFile, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: tokenFile)
        let r = try agent.run(["pair", "--url", node.url, "--token-file", tokenFile], env: keyring.env)
        #expect(r.status == 0, "\(r.stderr)")
    }

    @Test func pairWritesTheKeyringAndRunsReadIt() throws {
        let keyring = try TestKeyring()
        let node = try TestNode()
        let agent = try AgentSandbox()
        try pair(agent, node, keyring)
        // Nothing secret in the config folder; both secrets in the keyring under the node's origin.
        #expect(!FileManager.default.fileExists(atPath: agent.config + "/token"))
        #expect(!FileManager.default.fileExists(atPath: agent.config + "/capture-key"))
        #expect(try keyring.lookup(node: node.url, kind: "token") == node.token)
        let captureKey = try #require(try keyring.lookup(node: node.url, kind: "capture-key"))
        agent.secrets.append(captureKey)

        #expect(try agent.run(["capture", "from the keyring"], env: keyring.env).status == 0)
        try queue(agent, endpoint: .photos, source: "linux-photos", count: 2)
        #expect(try agent.run(["drain"], env: keyring.env).status == 0)
        #expect(try node.items("capture").count == 1)
        #expect(try node.items("photos").count == 2)
        let auth = try node.requests().filter { $0["path"]?.stringValue?.hasPrefix("/v1/ingest/") == true }
            .map { "\($0["path"]?.stringValue ?? ""):\($0["auth"]?.stringValue ?? "")" }
        #expect(Set(auth) == ["/v1/ingest/capture:capture", "/v1/ingest/photos:device"])
        let status = try JSONValue.parse(Array(agent.run(["status", "--json"], env: keyring.env).stdout.utf8))
        #expect(status?["capture_key"] == .bool(true))
        let doctor = try DoctorRun(agent, env: keyring.env)
        #expect(doctor.check("token")?.finding == "in the keyring, with a capture key")
        #expect(doctor.check("node")?.status == "ok")
    }

    @Test func aLockedKeyringExits4AndKeepsEverything_andSystemdsCredentialStillWins() throws {
        let keyring = try TestKeyring()
        let node = try TestNode()
        let agent = try AgentSandbox()
        try pair(agent, node, keyring)
        try keyring.lock()
        try queue(agent, endpoint: .photos, source: "linux-photos", count: 3)
        let locked = try agent.run(["drain"], env: keyring.env)
        #expect(locked.status == 4)
        #expect(locked.stderr.contains("keyring locked"))
        #expect(try agent.outboxCount("photos") == 3)
        #expect(try node.items("photos").isEmpty)
        #expect(try DoctorRun(agent, env: keyring.env).check("token")?.status == "fail")

        let credentials = agent.root + "/credentials"
        try FileManager.default.createDirectory(atPath: credentials, withIntermediateDirectories: true)
        try node.token.write(toFile: credentials + "/hearthloom.token", atomically: true, encoding: .utf8)
        let viaSystemd = try agent.run(["drain"], env: keyring.env.merging(["CREDENTIALS_DIRECTORY": credentials]) { _, n in n })
        #expect(viaSystemd.status == 0, "\(viaSystemd.stderr)")
        #expect(try node.items("photos").count == 3)
    }

    @Test func aKeyringThatNeverAnswersIsGivenUpOnAtTheDeadline() throws {
        let bus = try PrivateBus(activation: false)
        // Owns the Secret Service's name and never reads a message: every call to it hangs.
        let mute = try Child("/usr/bin/python3", ["-c", "import dbus, time; b = dbus.bus.BusConnection('\(bus.address)'); "
                                                + "b.request_name('org.freedesktop.secrets'); time.sleep(600)"], captureOutput: false)
        defer { mute.signal(SIGKILL); _ = mute.wait() }
        let owned = eventually(10) {
            (try? runProcess("/usr/bin/gdbus", ["call", "--session", "--dest", "org.freedesktop.DBus", "--object-path", "/org/freedesktop/DBus",
                                                "--method", "org.freedesktop.DBus.NameHasOwner", "org.freedesktop.secrets"], env: bus.env))?
                .stdout.contains("true") == true
        }
        try #require(owned)
        let node = try TestNode()
        let agent = try AgentSandbox()
        try agent.write("node.conf", "[Node]\nURL=\(node.url)\nTokenStore=keyring\n", mode: 0o600)
        try queue(agent, endpoint: .photos, source: "linux-photos", count: 1)
        let r = try agent.run(["drain"], env: bus.env)
        #expect(r.status == 4)
        #expect(r.stderr.contains("keyring locked or not answering: no reply within 5 s"), "\(r.stderr)")
        #expect(try agent.outboxCount("photos") == 1)
    }

    @Test func anAbsentKeyringExits4_andPairingThenKeepsNothing() throws {
        let keyring = try TestKeyring()
        let node = try TestNode()
        let agent = try AgentSandbox()
        try pair(agent, node, keyring)
        keyring.stop()
        try queue(agent, endpoint: .photos, source: "linux-photos", count: 1)
        let absent = try agent.run(["drain"], env: keyring.env)
        #expect(absent.status == 4)
        #expect(absent.stderr.contains("keyring locked or absent"))
        #expect(try agent.outboxCount("photos") == 1)

        let fresh = try AgentSandbox()
        try fresh.write("node.conf", "[Node]\nTokenStore=keyring\n", mode: 0o600)
        let tokenFile = fresh.root + "/t"
        try node.token.write(toFile: tokenFile, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: tokenFile)
        fresh.secrets.append(node.token)
        let refused = try fresh.run(["pair", "--url", node.url, "--token-file", tokenFile], env: keyring.env)
        #expect(refused.status == 4)
        #expect(try String(contentsOfFile: fresh.config + "/node.conf", encoding: .utf8) == "[Node]\nTokenStore=keyring\n")
    }
}
