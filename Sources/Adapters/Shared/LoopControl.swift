import FoundationEssentials
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Lets other threads stop a thread that blocks on descriptors (a bus, gpsd's socket): a flag plus
/// a pipe the thread polls beside them, so a stop wakes it at once instead of at its next timeout.
final class LoopControl: Sendable {
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
        wait(onReadable: [], buses: buses, timeout: timeout)
    }

    /// Waits for one of `descriptors` to be readable, or a stop, at most `timeout` seconds.
    func wait(onReadable descriptors: [Int32], timeout: Double) {
        wait(onReadable: descriptors, buses: [], timeout: timeout)
    }

    /// Sleeps `seconds`, or until a stop.
    func pause(_ seconds: Double) {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while !isStopping, ContinuousClock.now < deadline { wait(until: deadline) }
    }

    private func wait(onReadable descriptors: [Int32], buses: [BusConnection], timeout: Double?) {
        var fds = [pollfd(fd: readFD, events: Int16(POLLIN), revents: 0)]
        for fd in descriptors { fds.append(pollfd(fd: fd, events: Int16(POLLIN), revents: 0)) }
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
