import FoundationEssentials
import Synchronization

/// Wires config, state store, node and gate together for one command.
public struct Agent: Sendable {
    public let paths: Paths
    public let registry: AdapterRegistry

    public init(paths: Paths, registry: AdapterRegistry) { self.paths = paths; self.registry = registry }

    public func nodeConfig() throws(AgentError) -> NodeConfig {
        do { return try NodeConfig.load(paths) } catch { throw .config(error) }
    }

    public func adapterConfigs() throws(AgentError) -> [AdapterConfig] {
        do { return try registry.loadAll(paths) } catch { throw .config(error) }
    }

    public func openStore() throws(AgentError) -> StateStore {
        do { return try StateStore(paths: paths) } catch { throw .store(error) }
    }

    /// The node from node.conf, or the embedded local node when none is paired.
    public func transport(_ node: NodeConfig, store: StateStore) throws(AgentError) -> any NodeTransport {
        guard let url = node.url else {
            do { return try LocalNode(path: paths.localNodeDatabase) } catch { throw .store(error) }
        }
        let credentials = try Credentials.load(node)
        do {
            return try NodeClient(url: url, token: credentials.token, captureKey: credentials.captureKey, caFile: node.caFile,
                                  headers: node.headers, device: DeviceIdentity.current(store: store))
        } catch { throw AgentError(.node, error.message) }
    }

    public func gate(store: StateStore, node: NodeConfig) throws(AgentError) -> IngestGate {
        IngestGate(store: store, transport: try transport(node, store: store), lockPath: paths.drainLock)
    }

    /// The node, the state store and the gate over them, wired in one order for every command:
    /// node.conf first, so a broken one is reported before anything is opened.
    public struct Session: Sendable {
        public let node: NodeConfig
        public let store: StateStore
        public let gate: IngestGate
        public var policy: DrainPolicy { DrainPolicy(maxWait: node.maxWait) }
    }

    public func session() throws(AgentError) -> Session {
        let node = try nodeConfig()
        let store = try openStore()
        return Session(node: node, store: store, gate: try gate(store: store, node: node))
    }

    // MARK: - Scanning

    public struct ScanResult: Sendable {
        public var adapter: String
        public var type: String
        public var queued: Int
        public var warnings: Int
        public var error: String?
    }

    /// The enabled instances, or those named (enabled or not), in the order given.
    public func select(_ names: [String]) throws(AgentError) -> [AdapterConfig] {
        let all = try adapterConfigs()
        guard !names.isEmpty else { return all.filter(\.enabled) }
        var selected: [AdapterConfig] = []
        for name in names {
            guard let config = all.first(where: { $0.name == name }) else {
                let known = all.map(\.name).joined(separator: ", ")
                throw AgentError(.usage, "no adapter instance \(name) in \(paths.adaptersDir)" + (known.isEmpty ? "" : " (have: \(known))"))
            }
            selected.append(config)
        }
        return selected
    }

    /// `resync`: forgets where `config` was and what it derived from its records, so its next
    /// scan emits everything again; the records themselves stay.
    public func forgetProgress(of config: AdapterConfig, in store: StateStore) throws(AgentError) {
        do {
            try store.resetAnchor(for: config.name)
            if let space = registry.recordSpace(of: config) { try store.resetSettled(space: space) }
        } catch { throw .store(error) }
    }

    /// `run --dry-run`: scans `configs` into a throwaway copy of their state; `show` gets each item.
    public func preview(_ configs: [AdapterConfig], show: @escaping @Sendable (String) -> Void) async throws(AgentError) -> [ScanResult] {
        let preview: PreviewStore
        do { preview = try PreviewStore(copying: paths, adapters: configs.map { ($0.name, registry.recordSpace(of: $0)) }) }
        catch { throw .store(error) }
        return await scan(configs, into: .preview(preview, show: show))
    }

    /// Scans each adapter in turn into `target`.
    public func scan(_ configs: [AdapterConfig], into target: ScanTarget) async -> [ScanResult] {
        var results: [ScanResult] = []
        var ends: [StateStore.ScanEnd] = []
        let budget = outboxBudget(for: target)
        var stopped: [String] = []
        for config in configs {
            var result = ScanResult(adapter: config.name, type: config.type, queued: 0, warnings: 0)
            do {
                if let budget, budget.isFull { throw OutboxFull(held: budget.bytesHeld, limit: budget.limit) }
                let adapter = try registry.make(config)
                // A live adapter that `watch` follows is its to update; a timer run leaves it be.
                var liveLock: FileLock?
                if case .queue = target, adapter is any LiveAdapter {
                    liveLock = await FileLock.acquire(paths.liveLock(config.name), wait: 0)
                    if liveLock == nil { Log.info("\(config.name): followed live by watch; not scanned"); results.append(result); continue }
                }
                defer { liveLock?.release() }
                let sink = self.sink(for: config, adapter: adapter, into: target, budget: budget)
                defer { sink.progressLine.finish() }
                try await adapter.scan(since: try target.store.anchor(for: config.name), into: sink)
                result.queued = sink.queued.load(ordering: .relaxed)
                result.warnings = sink.warnings.load(ordering: .relaxed)
            } catch let full as OutboxFull {
                result.error = full.description + "; stopped before queuing more"
                stopped.append(config.name)
            } catch {
                result.error = error.message
                Log.error("\(config.name): \(error.message)")
            }
            ends.append(StateStore.ScanEnd(adapter: config.name, type: config.type, error: result.error))
            results.append(result)
        }
        if let budget, !stopped.isEmpty {
            Log.error("\(OutboxFull(held: budget.bytesHeld, limit: budget.limit)): \(stopped.joined(separator: ", ")) stopped before queuing more; they go on from where they stopped once the node has taken what is queued")
        }
        // One transaction for every adapter's scan record (see `recordScans`).
        if case .queue(let store, _) = target {
            do { try store.recordScans(ends) } catch { Log.error("cannot record the scans in \(store.path): \(error.message)") }
        }
        return results
    }

    func sink(for config: AdapterConfig, adapter: any DeviceAdapter, into target: ScanTarget, budget: OutboxBudget? = nil) -> ScanSink {
        ScanSink(target, adapter: config.name, source: type(of: adapter).source, space: registry.recordSpace(of: config), budget: budget)
    }

    /// `MaxQueue=` against what the outbox holds now, for a pass that queues (not a dry run).
    func outboxBudget(for target: ScanTarget) -> OutboxBudget? {
        guard case .queue(let store, _) = target else { return nil }
        let limit = (try? nodeConfig().maxQueue) ?? NodeConfig.Key.maxQueue.defaultValue
        guard limit < Int64.max else { return nil }
        do { return try OutboxBudget(limit: limit, measure: { () throws(StoreError) -> Int64 in try store.outboxBytes() }) } catch {
            Log.error("cannot measure the outbox in \(store.path): \(error.message)")
            return nil
        }
    }

    /// `run`: scans `configs` and sends what they queue through `gate` while the scan goes on, so
    /// the node's work and the state store's overlap the reading of files: each commit wakes the
    /// gate's drain loop, whatever the node. Sending stops early when the node fails (the items
    /// stay queued for the next run).
    public func scanAndSend(_ configs: [AdapterConfig], store: StateStore, gate: IngestGate, policy: DrainPolicy) async -> ([ScanResult], DrainReport) {
        let wakeup = Wakeup()
        let scanned = Atomic<Bool>(false)
        // An outbox over MaxQueue= is sent first, so the scans find room if the node takes it.
        let first = outboxBudget(for: .queue(store))?.isFull == true ? await gate.drain(policy) : nil
        // Above the scan's read tasks: the drain's few short steps per commit then run on a thread of
        // their own, beside the pool's busy ones, so delivery keeps pace with the scan instead of
        // queueing behind read slices and finishing after it.
        let sender = Task(priority: .high) {
            var report = first ?? DrainReport()
            if report.stop != nil || report.lockedElsewhere { return report }
            while true {
                let last = scanned.load(ordering: .acquiring)
                report.merge(await gate.drain(policy))
                if last || report.stop != nil || report.lockedElsewhere { return report }
                await wakeup.wait(until: nil)
            }
        }
        let results = await scan(configs, into: .queue(store, onCommit: { wakeup.kick() }))
        scanned.store(true, ordering: .releasing)
        wakeup.kick()
        return (results, await sender.value)
    }
}
