import FoundationEssentials
import Synchronization

/// The long-running `watch`: live adapters follow their sources, file adapters are rescanned on
/// an interval, and the outbox is drained whenever something is queued. Between events it sleeps
/// on one deadline, so an idle watcher does not wake (STYLE: no polling loops).
public final class Watcher: Sendable {
    public struct Options: Sendable {
        public var interval: Double
        public var sendEvery: Double
        public init(interval: Double, sendEvery: Double) { self.interval = interval; self.sendEvery = sendEvery }
    }

    private let agent: Agent
    private let configs: [AdapterConfig]
    private let store: StateStore
    private let gate: IngestGate
    private let options: Options
    private let maxWait: Double
    private let wakeup = Wakeup()
    private let stopping = Atomic<Bool>(false)

    /// How long a folder must stay quiet before its adapter is rescanned: a copy of 500 photos
    /// is one rescan, not 500.
    static let settle = Duration.seconds(2)

    /// Watches the enabled adapter instances.
    public init(agent: Agent, options: Options) throws(AgentError) {
        let session = try agent.session()
        self.agent = agent; self.configs = try agent.select([]); self.options = options
        self.store = session.store; self.gate = session.gate
        self.maxWait = min(session.node.maxWait, options.sendEvery)
    }

    /// Asks `run` to finish: safe from a signal handler's queue.
    public func stop() {
        stopping.store(true, ordering: .relaxed)
        wakeup.kick()
    }

    private var stopRequested: Bool { stopping.load(ordering: .relaxed) }

    public func run() async -> ExitCode {
        var live: [(config: AdapterConfig, adapter: any LiveAdapter)] = []
        var periodic: [AdapterConfig] = []
        var watched: [(index: Int, paths: [String])] = []
        for config in configs {
            let adapter = try? agent.registry.make(config)
            if let adapter = adapter as? any LiveAdapter { live.append((config, adapter)); continue }
            if let paths = adapter?.watchedPaths, !paths.isEmpty { watched.append((periodic.count, paths)) }
            periodic.append(config)
        }
        let followers = live.map { entry in Task { await follow(entry.adapter, config: entry.config) } }
        // A change under an adapter's folders marks it; it is rescanned once things settle.
        let changes = Locked<(adapters: Set<Int>, last: ContinuousClock.Instant?)>(([], nil))
        let wakeup = self.wakeup
        let monitor = watched.isEmpty ? nil : FolderMonitor { index in
            changes.withLock { $0.adapters.insert(index); $0.last = .now }
            wakeup.kick()
        }
        for (index, paths) in watched { for path in paths { monitor?.watch(tree: path, owner: index) } }

        Systemd.notify("READY=1\nSTATUS=watching \(configs.count) adapters, sending to \(await gate.nodeName)")
        Log.notice("watching \(configs.map(\.name).joined(separator: ", ")); rescanning every \(Int(options.interval)) s")
        let clock = ContinuousClock()
        let pingEvery = Systemd.watchdogPingInterval        // fixed for the life of the service
        var nextScan = clock.now
        var nextPing = pingEvery.map { clock.now + .seconds($0) }
        var failures = false
        while !stopRequested {
            await gate.startTrace()
            if clock.now >= nextScan, !periodic.isEmpty {
                changes.withLock { $0 = ([], nil) }
                let results = await agent.scan(periodic, into: .queue(store))
                failures = results.contains { $0.error != nil }
                nextScan = clock.now + .seconds(options.interval)
            } else if let settled = changes.withLock({ $0.last.map { $0 + Watcher.settle } }), clock.now >= settled {
                let indices = changes.withLock { state in defer { state = ([], nil) }; return state.adapters }
                let results = await agent.scan(indices.sorted().map { periodic[$0] }, into: .queue(store))
                if results.contains(where: { $0.error != nil }) { failures = true }
            }
            let report = await gate.drain(DrainPolicy(maxWait: maxWait, lockWait: 0))
            if report.deliveredTotal > 0 { Log.info("sent \(report.deliveredTotal) (\(report.accepted) accepted)") }
            if report.stop == .unauthorized { Systemd.notify("STATUS=the node refused the token; pair again") }
            if let ping = pingEvery, let due = nextPing, clock.now >= due {
                Systemd.notify("WATCHDOG=1")
                nextPing = clock.now + .seconds(ping)
            }
            // Something left in the outbox is retried after --send-every; otherwise sleep until the
            // next rescan, a watchdog ping, or a live adapter's commit.
            var deadline = periodic.isEmpty ? nil : nextScan
            if (try? store.outboxDepth().isEmpty) == false { deadline = earliest(deadline, clock.now + .seconds(options.sendEvery)) }
            deadline = earliest(deadline, nextPing)
            deadline = earliest(deadline, changes.withLock { $0.last.map { $0 + Watcher.settle } })
            await wakeup.wait(until: deadline)
        }
        Systemd.notify("STOPPING=1")
        Log.notice("stopping: sending what is queued")
        for follower in followers { follower.cancel() }
        for follower in followers { await follower.value }
        monitor?.stop()
        _ = await gate.drain(DrainPolicy(maxWait: 2, lockWait: 2))
        return failures ? .someFailed : .ok
    }

    private func earliest(_ a: ContinuousClock.Instant?, _ b: ContinuousClock.Instant?) -> ContinuousClock.Instant? {
        guard let a else { return b }
        guard let b else { return a }
        return min(a, b)
    }

    /// Runs one live adapter until cancelled; an error is recorded and the adapter restarted
    /// after a growing pause, so a broken source does not spin.
    private func follow(_ adapter: some LiveAdapter, config: AdapterConfig) async {
        guard let lock = await FileLock.acquire(agent.paths.liveLock(config.name), wait: 0) else {
            Log.error("\(config.name): another watch already follows it; not followed here")
            return
        }
        defer { lock.release() }
        let wakeup = self.wakeup
        var backoff = Backoff(base: 1, cap: 60)
        while !Task.isCancelled {
            do {
                let sink = agent.sink(for: config, adapter: adapter, into: .queue(store, onCommit: { wakeup.kick() }))
                try await adapter.follow(from: try store.anchor(for: config.name), into: sink)
                backoff.reset()
            } catch {
                if Task.isCancelled { break }
                Log.error("\(config.name): \(error.message)")
                try? store.recordScan(adapter: config.name, type: config.type, error: error.message)
            }
            try? await Task.sleep(for: .seconds(backoff.next()))
        }
    }
}

/// One sleeper's alarm clock: `wait` returns at its deadline, on `kick`, or on cancellation.
/// A kick with nobody waiting is kept, so a commit just before the sleep is not missed.
final class Wakeup: Sendable {
    private struct State: Sendable {
        var pending = false
        var waiter: CheckedContinuation<Void, Never>?
    }
    private let state = Locked(State())

    func kick() {
        let waiter = state.withLock { s -> CheckedContinuation<Void, Never>? in
            guard let w = s.waiter else { s.pending = true; return nil }
            s.waiter = nil
            return w
        }
        waiter?.resume()
    }

    func wait(until deadline: ContinuousClock.Instant?) async {
        let alarm = deadline.map { when in
            Task { [self] in
                try? await Task.sleep(until: when, clock: .continuous)
                if !Task.isCancelled { kick() }
            }
        }
        defer { alarm?.cancel() }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
                let now = state.withLock { s -> Bool in
                    if s.pending { s.pending = false; return true }
                    s.waiter = c
                    return false
                }
                if now { c.resume() }
            }
        } onCancel: { kick() }
    }
}
