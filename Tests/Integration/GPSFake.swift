import Foundation
import IngestCore
import Testing

/// A real gpsd fed by `gpsfake` (Debian's gpsd-clients) over UDP, held until a client watches.
///
/// gpsfake feeds its log as soon as gpsd is up, and gpsd hands reports only to clients that are
/// already watching, so whatever came before the agent's WATCH would be lost (how much depends on
/// the agent's reconnect backoff). So gpsfake is held: its daemon monitor (`-m`) is `sh` running a
/// script that stops gpsfake (SIGSTOP, before gpsd exists) and then becomes gpsd. The script is read
/// by `sh`, never exec'd itself: an exec of a file this process just wrote can fail with ETXTBSY
/// while a child spawned meanwhile by another test still holds the write descriptor. gpsd listens while gpsfake
/// waits; `feed()` lets it go on (SIGCONT) once gpsd's log (`-D 2`) shows it answered a WATCH.
/// gpsfake then adds the device, which gpsd opens at once (`-n`), and feeds the log; with `-1 -W 2`
/// it stops gpsd and exits 2 s after the last sentence ("Test timed out", status 1).
/// UDP with a 0.3 ms pause between sentences: a pty feeds ~20 fixes/s, too slow for a day's log,
/// and UDP with no pause drops datagrams when the machine is busy.
/// gpsfake names gpsd's control socket `$TMPDIR/gpsfake-<its pid>.sock` and adds its device as
/// soon as that path exists. A gpsd killed by SIGKILL leaves its socket behind; a later gpsfake
/// with the same pid then raced ahead of the hold and of gpsd, added its device to the dead socket
/// (silently) and fed its whole log to a closed port. So each gpsfake gets a TMPDIR of its own.
final class GPSFake {
    let port: Int
    let process: Child
    /// gpsfake's stderr, which gpsd (its child) shares.
    let logPath: String
    /// The gpsd that gpsfake started: its pid and its start time (field 22 of /proc/PID/stat),
    /// so a pid that was reaped and reused is never signalled.
    private(set) var gpsd: (pid: pid_t, start: String)?
    private let dir: String
    private var exit: ProcessResult?

    init(log: String, port: Int) throws {
        self.port = port
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("gpsfake-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        logPath = dir + "/gpsfake.log"
        let hold = dir + "/hold-then-gpsd"
        try "#!/bin/sh\n# gpsfake's daemon monitor: stop gpsfake (the parent) until the test lets it go on, then become gpsd.\nkill -STOP $PPID\nexec \"$@\"\n"
            .write(toFile: hold, atomically: true, encoding: .utf8)
        let args = ["-1", "-q", "-u", "-n", "-W", "2", "-D", "2", "-m", "/bin/sh " + hold, "-c", "0.0003", "-P", String(port), log]
        process = try childLoggingStderr(to: logPath, "/usr/bin/gpsfake", args, env: ["PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "TMPDIR": dir])
        // A generous bound: under the sanitizers, with every suite starting processes at once, Python
        // alone can take seconds to start. A gpsfake that has already ended fails at once.
        let started = eventually(90) {
            gpsd = GPSFake.child(of: process.pid, named: "gpsd")
            return gpsd != nil || GPSFake.hasEnded(process.pid)
        }
        guard started, gpsd != nil else {
            kill()
            throw GPSFakeError.noDaemon(log, gpsfakeSaid: GPSFake.tail(of: logPath))
        }
    }

    enum GPSFakeError: Error { case noDaemon(String, gpsfakeSaid: String), nobodyWatched(String) }

    deinit {
        kill()
        try? FileManager.default.removeItem(atPath: dir)
        // gpsd makes its shared-memory export (key 0x4770 + port, set by gpsfake) as root, then
        // drops privileges and cannot remove it when it exits; left alone, each port keeps 24 KB.
        let segment = shmget(key_t(0x4770_0000 | port), 0, 0)
        if segment >= 0 { _ = shmctl(segment, IPC_RMID, nil) }
    }

    /// Waits until gpsd has answered a client's WATCH (the agent connects with backoff), then lets
    /// gpsfake feed the log.
    func feed(within seconds: Double = 60) throws {
        let watched = eventually(seconds) {
            (try? String(contentsOfFile: logPath, encoding: .utf8))?.contains(#"{"class":"WATCH","enable":true"#) == true
        }
        guard watched else { throw GPSFakeError.nobodyWatched(logPath) }
        process.signal(SIGCONT)
    }

    /// Waits for gpsfake to end; true when gpsd took the device (its log shows gpsfake's `+udp://`
    /// on the control socket) and gpsfake fed the whole log (its last words, "Test timed out", mean
    /// it waited `-W` seconds after the last sentence and stopped gpsd).
    @discardableResult
    func waitUntilFed() -> Bool {
        if exit == nil { exit = process.wait() }
        return GPSFake.head(of: logPath).contains(": +udp://") && GPSFake.tail(of: logPath).contains("Test timed out")
    }

    /// Stops gpsd and gpsfake by pid, as a crash or `systemctl restart gpsd` would.
    func kill() {
        if let gpsd, GPSFake.startTime(of: gpsd.pid) == gpsd.start { _ = Glibc.kill(gpsd.pid, SIGKILL) }
        guard exit == nil else { return }
        process.signal(SIGKILL)
        exit = process.wait()
    }

    /// A child of `parent` (any of its threads) whose command name is `name`, with its start time.
    static func child(of parent: pid_t, named name: String) -> (pid: pid_t, start: String)? {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(parent)/task")) ?? []
        for task in tasks {
            let children = (try? String(contentsOfFile: "/proc/\(parent)/task/\(task)/children", encoding: .utf8)) ?? ""
            for pid in children.split(separator: " ").compactMap({ pid_t($0) }) {
                let comm = (try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8)) ?? ""
                if comm.trimmingCharacters(in: .whitespacesAndNewlines) == name, let start = startTime(of: pid) { return (pid, start) }
            }
        }
        return nil
    }

    /// True once `pid` is a zombie or gone: a child of ours that ended and is not yet reaped.
    static func hasEnded(_ pid: pid_t) -> Bool {
        guard let fields = statFields(of: pid) else { return true }
        return fields.first == "Z"
    }

    /// Field 22 of /proc/PID/stat (clock ticks after boot), or nil once the process is gone.
    static func startTime(of pid: pid_t) -> String? {
        guard let fields = statFields(of: pid) else { return nil }
        return fields.count > 19 ? String(fields[19]) : nil
    }

    /// Fields 3… of /proc/PID/stat (state first), after "pid (comm)"; nil once the process is gone.
    private static func statFields(of pid: pid_t) -> [Substring]? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let end = stat.lastIndex(of: ")") else { return nil }
        return stat[stat.index(after: end)...].split(separator: " ")
    }

    /// The last 4 KB of a file (gpsd's log of a day's replay runs to megabytes).
    static func tail(of path: String) -> String {
        guard let file = FileHandle(forReadingAtPath: path) else { return "" }
        defer { try? file.close() }
        let size = (try? file.seekToEnd()) ?? 0
        try? file.seek(toOffset: size > 4096 ? size - 4096 : 0)
        return String(decoding: (try? file.readToEnd()) ?? Data(), as: UTF8.self)
    }

    /// The first 16 KB of a file: where gpsd logs the client's WATCH and gpsfake's device.
    static func head(of path: String) -> String {
        guard let file = FileHandle(forReadingAtPath: path) else { return "" }
        defer { try? file.close() }
        return String(decoding: (try? file.read(upToCount: 16_384)) ?? Data(), as: UTF8.self)
    }
}

/// Runs `path` with its stderr going to the file `log`, which a test can read while it runs
/// (`Child` hands captured output over only at the end). `sh` execs the program: same pid.
func childLoggingStderr(to log: String, _ path: String, _ args: [String], env: [String: String] = [:]) throws -> Child {
    try Child("/bin/sh", ["-c", "exec \"$@\" 2>\"$CHILD_STDERR\"", "sh", path] + args,
              env: env.merging(["CHILD_STDERR": log]) { _, new in new }, captureOutput: false)
}

/// The fixes the gpsd adapter kept in the state store's journal (read-only, so `watch` may still run):
/// the fix times of each 36-byte packed fix (Sources/Adapters/GPSD/Fix.swift), oldest first.
func journaledFixTimes(_ agent: AgentSandbox, adapter: String = "gps") throws -> [Double] {
    guard let store = try StateStore(readOnlyAt: Paths(configDir: agent.config, stateDir: agent.state)) else { return [] }
    // The adapter's `journal` group (Sources/Adapters/GPSD/FixJournal.swift), one record a chunk.
    let chunks = try AdapterRecords(store: store, space: StateStore.space(instance: adapter)).records(in: "journal").map(\.value)
    return chunks.flatMap { (data: [UInt8]) -> [Double] in
        stride(from: 0, to: data.count - 35, by: 36).map { (at: Int) -> Double in
            let bits: UInt64 = data[at..<at + 8].reversed().reduce(0) { $0 << 8 | UInt64($1) }
            return Double(bitPattern: bits)
        }
    }
}
