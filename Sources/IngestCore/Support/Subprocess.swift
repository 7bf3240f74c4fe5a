import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Runs a helper program (`systemctl --user …` for `doctor`) with a deadline: its output is read
/// until it exits, and it is killed when the deadline passes, so a check never hangs.
public enum Subprocess {
    public struct Result: Sendable {
        /// The exit status; nil when it was killed at the deadline or could not start.
        public var status: Int32?
        /// stdout and stderr together.
        public var output: String
    }

    /// Runs `program` (looked up in `PATH`) with `arguments`; nil when it is not installed.
    public static func run(_ program: String, _ arguments: [String], timeout: Double = 5) -> Result? {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { return nil }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, fds[1], 1)
        posix_spawn_file_actions_adddup2(&actions, fds[1], 2)
        posix_spawn_file_actions_addclose(&actions, fds[0])
        let argv = ([program] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let rc = posix_spawnp(&pid, program, &actions, nil, argv, environ)
        close(fds[1])
        defer { close(fds[0]) }
        guard rc == 0 else { return nil }
        let output = readAll(fds[0], deadline: Double(monotonicNanoseconds()) / 1e9 + timeout)
        if output == nil { kill(pid, SIGKILL) }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let exited = (status & 0x7f) == 0
        return Result(status: output != nil && exited ? (status >> 8) & 0xff : nil, output: output ?? "")
    }

    /// Reads `fd` to its end; nil when `deadline` passes first.
    private static func readAll(_ fd: Int32, deadline: Double) -> String? {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16384)
        while true {
            let left = deadline - Double(monotonicNanoseconds()) / 1e9
            guard left > 0 else { return nil }
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&p, 1, Int32(left * 1000) + 1)
            if ready < 0 { if errno == EINTR { continue }; return nil }
            if ready == 0 { continue }
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 { if errno == EINTR { continue }; break }
            if n == 0 { break }
            bytes += buffer[0..<n]
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
