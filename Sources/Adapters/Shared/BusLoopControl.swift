import FoundationEssentials
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Lets other threads stop the bus thread: a flag plus a pipe the thread polls beside the bus.
final class BusLoopControl: Sendable {
    private let readFD: Int32
    private let writeFD: Int32
    private let stopping = Atomic<Bool>(false)

    init() {
        var fds: [Int32] = [-1, -1]
        _ = pipe(&fds)
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC); _ = fcntl(fd, F_SETFL, O_NONBLOCK) }
        readFD = fds[0]; writeFD = fds[1]
    }

    deinit { close(readFD); close(writeFD) }

    var isStopping: Bool { stopping.load(ordering: .acquiring) }

    func stop() {
        stopping.store(true, ordering: .releasing)
        var byte: UInt8 = 1
        _ = write(writeFD, &byte, 1)
    }

    /// Waits for one of `buses` to have something, or a stop, at most `timeout` seconds (nil: no limit).
    func wait(on buses: [BusConnection] = [], timeout: Double?) {
        var fds = [pollfd(fd: readFD, events: Int16(POLLIN), revents: 0)]
        for bus in buses { fds.append(pollfd(fd: bus.fileDescriptor, events: bus.pollEvents, revents: 0)) }
        let milliseconds = timeout.map { Int32(min(max(0, ($0 * 1000).rounded(.up)), Double(Int32.max))) } ?? -1
        _ = poll(&fds, nfds_t(fds.count), milliseconds)               // EINTR is a spurious wakeup: the caller loops
    }

    /// The same, until `deadline` (nil: no limit).
    func wait(on buses: [BusConnection] = [], until deadline: ContinuousClock.Instant?) {
        let left = deadline.map { ($0 - .now).components }
        wait(on: buses, timeout: left.map { max(0, Double($0.seconds) + Double($0.attoseconds) / 1e18) })
    }
}
