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
        let credentials: Credentials
        do { credentials = try Credentials.load(node) } catch { throw .config(error) }
        do {
            return try NodeClient(url: url, token: credentials.token, captureKey: credentials.captureKey, caFile: node.caFile,
                                  headers: node.headers, device: DeviceIdentity.current(store: store))
        } catch { throw AgentError(.node, error.message) }
    }

    public func gate(store: StateStore, node: NodeConfig) throws(AgentError) -> IngestGate {
        IngestGate(store: store, transport: try transport(node, store: store), lockPath: paths.drainLock)
    }

    // MARK: - Scanning

    public struct ScanResult: Sendable {
        public var adapter: String
        public var type: String
        public var queued: Int
        public var warnings: Int
        public var error: String?
    }

    /// Scans each adapter in turn. With `store` nil (`--dry-run`) items are printed, not queued,
    /// and anchors are read from `anchors` (the read-only store, if any) but never written.
    public func scan(_ configs: [AdapterConfig], store: StateStore?, dryRun: Bool, readOnlyAnchors: StateStore? = nil,
                     onCommit: @escaping @Sendable () -> Void = {}) async -> [ScanResult] {
        var results: [ScanResult] = []
        for config in configs {
            var result = ScanResult(adapter: config.name, type: config.type, queued: 0, warnings: 0)
            do {
                let adapter = try registry.make(config)
                let source = type(of: adapter).source
                if dryRun {
                    let anchor = (try? readOnlyAnchors?.anchor(for: config.name)) ?? Anchor()
                    let sink = DryRunSink(adapter: config.name, source: source, store: readOnlyAnchors)
                    try await adapter.scan(since: anchor, into: sink)
                    result.queued = sink.queued.load(ordering: .relaxed)
                    result.warnings = sink.warnings.load(ordering: .relaxed)
                } else if let store {
                    // A live adapter that `watch` follows is its to update; a timer run leaves it be.
                    var liveLock: FileLock?
                    if adapter is any LiveAdapter {
                        liveLock = await FileLock.acquire(paths.liveLock(config.name), wait: 0)
                        if liveLock == nil { Log.info("\(config.name): followed live by watch; not scanned"); results.append(result); continue }
                    }
                    defer { withExtendedLifetime(liveLock) {} }
                    let sink = StoreSink(store: store, adapter: config.name, source: source, onCommit: onCommit)
                    defer { sink.progressLine.finish() }
                    try await adapter.scan(since: try store.anchor(for: config.name), into: sink)
                    result.queued = sink.queued.load(ordering: .relaxed)
                    result.warnings = sink.warnings.load(ordering: .relaxed)
                    try store.recordScan(adapter: config.name, type: config.type, error: nil)
                }
            } catch {
                result.error = error.message
                Log.error("\(config.name): \(error.message)")
                if !dryRun { try? store?.recordScan(adapter: config.name, type: config.type, error: error.message) }
            }
            results.append(result)
        }
        return results
    }

    /// `run`: scans `configs` and sends what they queue through `gate` while the scan goes on, so
    /// the node's work and the state store's overlap the reading of files. Sending stops early
    /// when the node fails (the items stay queued for the next run).
    public func scanAndSend(_ configs: [AdapterConfig], store: StateStore, gate: IngestGate, policy: DrainPolicy) async -> ([ScanResult], DrainReport) {
        let wakeup = Wakeup()
        let scanned = Atomic<Bool>(false)
        let sender = Task {
            var report = DrainReport()
            while true {
                let last = scanned.load(ordering: .acquiring)
                report.merge(await gate.drain(policy))
                if last || report.stop != nil || report.lockedElsewhere { return report }
                await wakeup.wait(until: nil)
            }
        }
        let results = await scan(configs, store: store, dryRun: false, onCommit: { wakeup.kick() })
        scanned.store(true, ordering: .releasing)
        wakeup.kick()
        return (results, await sender.value)
    }
}
