import Dispatch

/// The one place blocking work runs: libcurl's POSTs, the sd-bus and libgps loops, a parse that
/// feeds an async reader, a spill file's writes, a content hash. None of it may hold a thread of
/// the cooperative pool, which has one per core and which every task shares.
///
/// Each job runs on a serial Dispatch queue of its own; libdispatch backs those with overcommit
/// threads that it reuses, so a job that blocks for hours (a bus follower) never keeps another
/// from starting, as it would in a fixed pool of a few threads. Work that must run in order on
/// one thread goes to a ``Lane``. Every job is counted from start to end, so a command can end
/// with ``shutdown(within:)``: a bounded wait for what is still running, naming it.
public enum WorkerThreads {
    private static let jobs = DispatchGroup()
    private static let running = Locked<[String: Int]>([:])

    /// Runs `body` on a worker thread and returns what it returns.
    public static func run<T: Sendable>(_ label: String, _ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { (done: CheckedContinuation<T, Never>) in
            start(label) { done.resume(returning: body()) }
        }
    }

    /// Starts `body` on a worker thread, not waited for: a loop that hands what it reads to an
    /// async reader (a stream), until that reader stops it.
    public static func start(_ label: String, _ body: @escaping @Sendable () -> Void) {
        began(label)
        DispatchQueue(label: "hearthloom.\(label)").async {
            body()
            ended(label)
        }
    }

    /// Waits at most `limit` for every job started so far to end. Returns the labels of those
    /// still running (empty when all ended), for the one line a command logs about them.
    public static func shutdown(within limit: Duration) -> [String] {
        let (seconds, attoseconds) = limit.components
        let nanoseconds = Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)
        guard jobs.wait(timeout: .now() + .nanoseconds(nanoseconds)) == .timedOut else { return [] }
        return running.withLock { $0.filter { $0.value > 0 }.keys.sorted() }
    }

    /// Jobs that run one at a time, in the order given, on one thread: the node transport (one
    /// POST at a time), a digest fed block by block. Each job counts as one of ``WorkerThreads``.
    public final class Lane: Sendable {
        public let label: String
        private let queue: DispatchQueue

        public init(_ label: String) {
            self.label = label
            queue = DispatchQueue(label: "hearthloom.\(label)")
        }

        /// Runs `body` after what was given before, and returns what it returns.
        public func run<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
            await withCheckedContinuation { (done: CheckedContinuation<T, Never>) in
                submit { done.resume(returning: body()) }
            }
        }

        /// Queues `body` after what was given before, not waited for.
        public func submit(_ body: @escaping @Sendable () -> Void) {
            WorkerThreads.began(label)
            queue.async { [label] in
                body()
                WorkerThreads.ended(label)
            }
        }

        /// Blocks the calling thread (never a task's) until what was given before has run, then
        /// runs `body` on the lane and returns what it returns.
        public func runBlocking<T>(_ body: () -> T) -> T { queue.sync(execute: body) }
    }

    private static func began(_ label: String) {
        jobs.enter()
        running.withLock { $0[label, default: 0] += 1 }
    }

    private static func ended(_ label: String) {
        running.withLock { $0[label, default: 1] -= 1 }
        jobs.leave()
    }
}
