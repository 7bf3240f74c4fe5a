import Foundation
import IngestCore
import Testing

/// The repository root, found from this file's path.
let repoRoot: String = {
    var url = URL(fileURLWithPath: #filePath)
    for _ in 0..<3 { url.deleteLastPathComponent() }
    return url.path
}()

/// The built `hearthloom-ingest`: `$HEARTHLOOM_BIN`, else beside the test bundle (SwiftPM puts both in one folder).
let agentBinary: String = {
    if let bin = ProcessInfo.processInfo.environment["HEARTHLOOM_BIN"] { return bin }
    let here = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    for candidate in [here, here.deletingLastPathComponent()] {
        let path = candidate.appendingPathComponent("hearthloom-ingest").path
        if FileManager.default.isExecutableFile(atPath: path) { return path }
    }
    return repoRoot + "/.build/debug/hearthloom-ingest"
}()

struct ProcessResult {
    var status: Int32
    var stdout: String
    var stderr: String
}

/// A child process started with `posix_spawn`, with an empty signal mask and default signal
/// handlers. (Foundation's `Process` passes on the calling thread's mask, and Dispatch's threads
/// block SIGCHLD and SIGTERM, which leaves `sh`'s `wait` and a server's SIGTERM handler deaf.)
final class Child {
    let pid: pid_t
    private var stdoutFD: Int32 = -1, stderrFD: Int32 = -1
    /// The write end of the child's stdin while the test holds it open (`holdStdin`), else -1.
    private var stdinFD: Int32 = -1
    /// Held while a child's pipes are made and marked close-on-exec, and across each spawn: a child
    /// that another test spawned in between would inherit them, and `wait()`, reading to their end,
    /// would wait for that unrelated child as well.
    private static let spawnLock = NSLock()

    init(_ path: String, _ args: [String], env: [String: String] = [:], stdin: String? = nil, captureOutput: Bool = true,
         holdStdin: Bool = false) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var inPipe: [Int32] = [-1, -1], outPipe: [Int32] = [-1, -1], errPipe: [Int32] = [-1, -1]
        try Child.spawnLock.withLock {
            for i in 0..<3 {
                var fds: [Int32] = [-1, -1]
                guard pipe(&fds) == 0 else { throw ChildError.spawn(errno) }
                for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }   // only the child's dup2 copies survive exec
                if i == 0 { inPipe = fds } else if i == 1 { outPipe = fds } else { errPipe = fds }
            }
        }
        posix_spawn_file_actions_adddup2(&actions, inPipe[0], 0)
        if captureOutput {
            posix_spawn_file_actions_adddup2(&actions, outPipe[1], 1)
            posix_spawn_file_actions_adddup2(&actions, errPipe[1], 2)
        } else {
            posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
            posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        }
        var attr = posix_spawnattr_t()
        posix_spawnattr_init(&attr)
        defer { posix_spawnattr_destroy(&attr) }
        var empty = sigset_t(), all = sigset_t()
        sigemptyset(&empty); sigfillset(&all)
        posix_spawnattr_setsigmask(&attr, &empty)
        posix_spawnattr_setsigdefault(&attr, &all)
        posix_spawnattr_setflags(&attr, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let environment = ProcessInfo.processInfo.environment.merging(env) { _, new in new }.map { "\($0.key)=\($0.value)" }
        var pid: pid_t = 0
        let argv = ([path] + args).map { strdup($0) } + [nil]
        let envp = environment.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) }; envp.forEach { free($0) } }
        let rc = Child.spawnLock.withLock { posix_spawn(&pid, path, &actions, &attr, argv, envp) }
        close(inPipe[0]); close(outPipe[1]); close(errPipe[1])
        guard rc == 0 else { close(inPipe[1]); close(outPipe[0]); close(errPipe[0]); throw ChildError.spawn(rc) }
        self.pid = pid
        stdoutFD = outPipe[0]; stderrFD = errPipe[0]
        if !captureOutput { close(outPipe[0]); close(errPipe[0]); stdoutFD = -1; stderrFD = -1 }
        stdinFD = inPipe[1]
        if holdStdin { return }
        finishStdin(stdin ?? "")
    }

    /// Writes `text` to the child's stdin and closes it (end of file).
    func finishStdin(_ text: String) {
        guard stdinFD >= 0 else { return }
        let bytes = Array(text.utf8)
        var off = 0
        while off < bytes.count {
            let n = bytes.withUnsafeBytes { write(stdinFD, $0.baseAddress! + off, $0.count - off) }
            if n <= 0 { break }
            off += n
        }
        close(stdinFD)
        stdinFD = -1
    }

    enum ChildError: Error { case spawn(Int32) }

    func signal(_ sig: Int32) { kill(pid, sig) }

    /// Reads stdout and stderr to their end, then reaps the child.
    func wait() -> ProcessResult {
        var out: [UInt8] = [], err: [UInt8] = []
        var fds = [pollfd(fd: stdoutFD, events: Int16(POLLIN), revents: 0), pollfd(fd: stderrFD, events: Int16(POLLIN), revents: 0)]
        var buf = [UInt8](repeating: 0, count: 65536)
        while fds.contains(where: { $0.fd >= 0 }) {
            if poll(&fds, 2, -1) < 0 { if errno == EINTR { continue }; break }
            for i in 0..<2 where fds[i].fd >= 0 && fds[i].revents != 0 {
                let n = buf.withUnsafeMutableBytes { read(fds[i].fd, $0.baseAddress, $0.count) }
                if n > 0 { if i == 0 { out += buf[0..<n] } else { err += buf[0..<n] } }
                else if n == 0 || errno != EINTR { close(fds[i].fd); fds[i].fd = -1 }
            }
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let code = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        return ProcessResult(status: code, stdout: String(decoding: out, as: UTF8.self), stderr: String(decoding: err, as: UTF8.self))
    }
}

/// Polls `condition` every `interval` seconds until it holds or `seconds` pass: the one way
/// tests wait on what a process does (never a bare sleep); the time is a limit, not an assertion.
func eventually(_ seconds: Double, every interval: Double = 0.2, _ condition: () throws -> Bool) rethrows -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if try condition() { return true }
        Thread.sleep(forTimeInterval: interval)
    }
    return try condition()
}

/// A datagram socket standing in for systemd's `$NOTIFY_SOCKET`.
final class NotifySocket {
    let path: String
    private let fd: Int32

    init(path: String) throws {
        self.path = path
        fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &addr.sun_path) { raw in
            for (i, b) in path.utf8.enumerated() where i < raw.count - 1 { raw[i] = b }
        }
        let rc = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) } }
        guard rc == 0 else { throw POSIXError(.EADDRINUSE) }
    }

    deinit { close(fd); unlink(path) }

    /// Every message that arrives within `seconds`, until one contains `wanted`.
    func wait(for wanted: String, seconds: Double) -> [String] {
        var got: [String] = []
        let deadline = Date().addingTimeInterval(seconds)
        var buf = [UInt8](repeating: 0, count: 4096)
        while Date() < deadline {
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&p, 1, 100) > 0 else { continue }
            let n = buf.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n > 0 { got.append(String(decoding: buf[0..<n], as: UTF8.self)) }
            if got.last?.contains(wanted) == true { break }
        }
        return got
    }
}

/// Runs a program to its end, feeding `stdin`.
@discardableResult
func runProcess(_ path: String, _ args: [String], env: [String: String] = [:], stdin: String? = nil) throws -> ProcessResult {
    try Child(path, args, env: env, stdin: stdin).wait()
}

/// A temporary config + state dir pair for one agent, and ways to run the real binary in it.
final class AgentSandbox {
    let root: String
    var config: String { root + "/config" }
    var state: String { root + "/state" }
    /// Every secret this sandbox used; `run` fails the test if any appears in any output.
    var secrets: [String] = []

    /// A fresh pair under a new temporary root, or the pair already under `root`.
    init(root: String? = nil) throws {
        self.root = root ?? FileManager.default.temporaryDirectory.appendingPathComponent("hl-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: config + "/adapters.d", withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: root) }

    var env: [String: String] { ["HEARTHLOOM_CONFIG_DIR": config, "HEARTHLOOM_STATE_DIR": state] }

    @discardableResult
    func run(_ args: [String], stdin: String? = nil, env extra: [String: String] = [:],
             sourceLocation: SourceLocation = #_sourceLocation) throws -> ProcessResult {
        let r = try runProcess(agentBinary, args, env: env.merging(extra) { _, n in n }, stdin: stdin)
        for s in secrets where !s.isEmpty {
            #expect(!r.stdout.contains(s) && !r.stderr.contains(s), "a secret leaked into the output of \(args)", sourceLocation: sourceLocation)
        }
        return r
    }

    /// Writes node.conf and a 0600 token file, as `pair` would, without asking the node.
    func usePairedNode(_ url: String, token: String, captureKey: String? = nil, extra: String = "") throws {
        secrets += [token] + (captureKey.map { [$0] } ?? [])
        try write("node.conf", "[Node]\nURL=\(url)\n\(extra)", mode: 0o600)
        try write("token", token + "\n", mode: 0o600)
        if let captureKey { try write("capture-key", captureKey + "\n", mode: 0o600) }
    }

    func write(_ name: String, _ text: String, mode: Int = 0o644) throws {
        let path = config + "/" + name
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path)
    }

    func store() throws -> StateStore { try StateStore(paths: Paths(configDir: config, stateDir: state)) }

    func status() throws -> JSONValue {
        let r = try run(["status", "--json"])
        return try #require(JSONValue.parse(Array(r.stdout.utf8)), "status --json printed: \(r.stdout) \(r.stderr)")
    }

    func outboxCount(_ endpoint: String) throws -> Int {
        Int(try status()["outbox"]?[endpoint]?.intValue ?? 0)
    }
}

/// The project's test node (tools/testnode/testnode.py): a real HTTP server process.
final class TestNode {
    let process: Child
    let port: Int
    let dir: String
    var url: String { caFile == nil ? "http://127.0.0.1:\(port)" : "https://localhost:\(port)" }
    let token: String
    /// Set for a TLS node: the admin calls trust this certificate.
    let caFile: String?

    init(_ args: [String] = [], token: String = "dev-\(UUID().uuidString)", caFile: String? = nil) throws {
        self.token = token
        self.caFile = caFile
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("node-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let portFile = dir + "/port"
        process = try Child("/usr/bin/env", ["python3", repoRoot + "/tools/testnode/testnode.py", "--port", "0", "--port-file", portFile,
                                             "--token", token, "--seed", "7"] + args, captureOutput: false)
        var port = 0
        _ = eventually(10, every: 0.05) {
            port = (try? String(contentsOfFile: portFile, encoding: .utf8)).flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) } ?? 0
            return port > 0
        }
        guard port > 0 else { process.signal(SIGKILL); _ = process.wait(); throw TestNodeError.didNotStart }
        self.port = port
    }

    enum TestNodeError: Error { case didNotStart, badReply(String) }

    deinit {
        process.signal(SIGTERM)
        _ = process.wait()
        try? FileManager.default.removeItem(atPath: dir)
    }

    private lazy var curl: CurlEasy = {
        var options = CurlEasy.Options(caFile: caFile, userAgent: "integration-tests")
        options.maxResponseBytes = 512 << 20       // /_admin/items of a 20 000-item run is tens of MB
        return try! CurlEasy(options)
    }()

    @discardableResult
    func admin(_ path: String, _ body: JSONValue? = nil) throws -> JSONValue {
        let r = try curl.perform(url: url + "/_admin/" + path, headers: ["Content-Type: application/json"], body: body?.encoded)
        guard r.status == 200, let json = JSONValue.parse(r.body) else { throw TestNodeError.badReply("\(path): \(r.status)") }
        return json
    }

    func setFaults(_ faults: JSONValue) throws { try admin("faults", faults) }

    /// Items stored for `endpoint`, each with `receipts` and `accepts`.
    func items(_ endpoint: String) throws -> [JSONValue] {
        try admin("items?endpoint=\(endpoint)")["items"]?.arrayValue ?? []
    }

    func requests() throws -> [JSONValue] { try admin("requests")["requests"]?.arrayValue ?? [] }

    /// Posts `items` to `/v1/ingest/ENDPOINT` with the device token, as another run of an agent would.
    func ingest(_ endpoint: String, source: String, items: [JSONValue]) throws {
        let body: JSONValue = ["actor": "device:tests", "source": .string(source), "items": .array(items),
                               "device": ["id": "tests", "name": "tests", "platform": "linux", "agent": "integration-tests"]]
        let r = try curl.perform(url: url + "/v1/ingest/" + endpoint, headers: ["Content-Type: application/json", "Authorization: Bearer " + token],
                                 body: body.encoded)
        guard r.status == 200 else { throw TestNodeError.badReply("ingest \(endpoint): \(r.status)") }
    }
}
