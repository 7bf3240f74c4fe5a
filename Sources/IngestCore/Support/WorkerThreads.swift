import Dispatch
#if canImport(Glibc)
import Glibc
#endif

/// The one place blocking work runs: libcurl's POSTs, the sd-bus and libgps loops, a parse that
/// feeds an async reader, a spill file's writes, a content hash. None of it may hold a thread of
/// the cooperative pool, which has one per core and which every task shares.
///
/// Each job runs on a thread of its own, named after the job (`ps -L`, `/proc/PID/task/*/comm`),
/// that ends with it: a job that blocks for hours (a bus follower) never keeps another from
/// starting, as it would in a fixed pool of a few threads, and a process holds exactly the
/// threads of the jobs it is running, where idle threads of a shared pool would linger for
/// seconds after each job and make `watch`'s thread count wander. Work that must run in order
/// on one thread goes to a ``Lane``. Every job is counted from start to end, so a command can
/// end with ``shutdown(within:)``: a bounded wait for what is still running, naming it.
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
        WorkerThread.spawn(named: label) {
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
    /// POST at a time), a digest fed block by block. The thread runs while jobs are waiting and
    /// ends when none is. Each job counts as one of ``WorkerThreads``.
    public final class Lane: Sendable {
        public let label: String
        /// Jobs given and not yet started, and whether the lane's thread is running them.
        private let queue = Locked<(waiting: [@Sendable () -> Void], draining: Bool)>(([], false))

        public init(_ label: String) { self.label = label }

        /// Runs `body` after what was given before, and returns what it returns. The lane lets go
        /// of `body`, and of all it holds, before the caller resumes: the caller stays the last
        /// owner of what it lent (a node the lane released would close on the lane as the
        /// process exits).
        public func run<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
            let held = Locked<(@Sendable () -> T)?>(body)
            return await withCheckedContinuation { (done: CheckedContinuation<T, Never>) in
                submit { done.resume(returning: Lane.call(held)) }
            }
        }

        /// Takes the body out of `held` and runs it; the body is released when this returns.
        private static func call<T>(_ held: Locked<(@Sendable () -> T)?>) -> T {
            let body = held.withLock { $0.take()! }
            return body()
        }

        /// Queues `body` after what was given before, not waited for.
        public func submit(_ body: @escaping @Sendable () -> Void) {
            WorkerThreads.began(label)
            let starts = queue.withLock { queue in
                queue.waiting.append(body)
                defer { queue.draining = true }
                return !queue.draining
            }
            if starts { WorkerThread.spawn(named: label) { [self] in drain() } }
        }

        /// Runs `body` after what was given before, on the lane's thread, and waits for it: for
        /// callers that are on a worker thread already.
        public func runBlocking<T: Sendable>(_ body: @escaping @Sendable () -> T) -> T {
            let done = DispatchSemaphore(value: 0)
            let result = Locked<T?>(nil)
            submit { result.withLock { $0 = body() }; done.signal() }
            done.wait()
            return result.withLock { $0.take()! }
        }

        /// Runs the waiting jobs in order until there are none, then lets the thread end.
        private func drain() {
            while let job = queue.withLock({ (queue: inout (waiting: [@Sendable () -> Void], draining: Bool)) -> (@Sendable () -> Void)? in
                if queue.waiting.isEmpty { queue.draining = false; return nil }
                return queue.waiting.removeFirst()
            }) {
                job()
                WorkerThreads.ended(label)
            }
        }
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

/// glibc's, declared here: Swift's Glibc module leaves out the GNU extensions.
@_silgen_name("pthread_setname_np")
private func pthread_setname_np(_ thread: pthread_t, _ name: UnsafePointer<CChar>) -> Int32

/// One detached POSIX thread running one closure.
private final class WorkerThread {
    private let name: String
    private let body: @Sendable () -> Void

    private init(name: String, body: @escaping @Sendable () -> Void) {
        self.name = name
        self.body = body
    }

    /// Starts `body` on a new thread named `hl-` and the start of `name` (Linux keeps 15 bytes).
    static func spawn(named name: String, _ body: @escaping @Sendable () -> Void) {
        let context = Unmanaged.passRetained(WorkerThread(name: name, body: body)).toOpaque()
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        var thread = pthread_t()
        let status = pthread_create(&thread, &attributes, { context in
            let worker = Unmanaged<WorkerThread>.fromOpaque(context!).takeRetainedValue()
            _ = pthread_setname_np(pthread_self(), String(decoding: ("hl-" + worker.name).utf8.prefix(15), as: UTF8.self))
            worker.body()
            return nil
        }, context)
        // Fails only when the system is out of threads or memory: nothing sensible can go on.
        precondition(status == 0, "cannot start a thread for \(name): \(String(cString: strerror(status)))")
    }
}
