#if canImport(Glibc)
import Glibc
#endif

/// An exclusive `flock` on a file in the state dir, so a timer run, the watcher and a manual
/// resync never post at once. The kernel drops it when the process dies, even on kill -9.
/// Held from `acquire` until `release` (or the lock's end, whichever comes first).
public final class FileLock {
    private var fd: Int32

    private init(fd: Int32) { self.fd = fd }

    /// Takes the lock, polling for up to `wait` seconds; nil when another process keeps it.
    public static func acquire(_ path: String, wait: Double) async -> FileLock? {
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            Log.warning("\(path): cannot open the lock: \(String(cString: strerror(errno)))")
            return nil
        }
        let deadline = ContinuousClock.now + .milliseconds(Int(wait * 1000))
        while true {
            if flock(fd, LOCK_EX | LOCK_NB) == 0 { return FileLock(fd: fd) }
            if errno != EWOULDBLOCK && errno != EINTR { break }
            if ContinuousClock.now >= deadline { break }
            try? await Task.sleep(for: .milliseconds(25))
        }
        close(fd)
        return nil
    }

    /// Lets go of the lock: closing the descriptor releases it.
    public func release() {
        guard fd >= 0 else { return }
        close(fd)
        fd = -1
    }

    deinit { release() }
}
