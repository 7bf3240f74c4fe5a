import FoundationEssentials

/// Everything `status` shows: node, pairing, adapters, outbox, dead letters.
public struct StatusReport: Sendable {
    public struct AdapterRow: Sendable {
        public var name: String
        public var type: String
        public var enabled: Bool
        public var lastSynced: Date? = nil
        public var lastScan: Date? = nil
        public var syncedCount: Int64
        public var queued: Int64
        public var lastError: String? = nil
        public var anchorEntries: Int64
        public var configError: String? = nil
    }

    public var node: String
    public var paired: Bool
    public var captureKey: Bool
    public var device: String
    public var adapters: [AdapterRow] = []
    public var outbox: [Endpoint: Int] = [:]
    /// Bytes of item bodies queued, and `MaxQueue=` (node.conf).
    public var outboxBytes: Int64 = 0
    public var maxQueue: Int64 = NodeConfig.Key.maxQueue.defaultValue
    public var deadLetters: [Endpoint: Int] = [:]
    public var recentDeadLetters: [StateStore.DeadLetter] = []
    public var notes: [Endpoint: String] = [:]
    public var retryNotBefore: Date?
    public var localNode: [LocalNode.Holding]?

    public var json: JSONValue {
        func date(_ d: Date?) -> JSONValue { d.map { .string($0.rfc3339) } ?? .null }
        func counts(_ m: [Endpoint: Int]) -> JSONValue { .object(Dictionary(uniqueKeysWithValues: m.map { ($0.key.rawValue, JSONValue.int(Int64($0.value))) })) }
        var out: [String: JSONValue] = [
            "node": .string(node), "paired": .bool(paired), "capture_key": .bool(captureKey), "device": .string(device),
            "adapters": .array(adapters.map { a in
                .object(["name": .string(a.name), "type": .string(a.type), "enabled": .bool(a.enabled),
                         "last_synced": date(a.lastSynced), "last_scan": date(a.lastScan), "synced_count": .int(a.syncedCount),
                         "queued": .int(a.queued), "last_error": JSONValue(a.configError ?? a.lastError), "anchor_entries": .int(a.anchorEntries)])
            }),
            "outbox": counts(outbox), "outbox_bytes": .int(outboxBytes), "max_queue_bytes": .int(maxQueue),
            "dead_letters": counts(deadLetters),
            "notes": .object(Dictionary(uniqueKeysWithValues: notes.map { ($0.key.rawValue, JSONValue.string($0.value)) })),
            "retry_not_before": date(retryNotBefore),
        ]
        if let localNode {
            out["local_node"] = .object(Dictionary(uniqueKeysWithValues: localNode.map {
                ($0.endpoint, JSONValue.object(["live": .int(Int64($0.live)), "deleted": .int(Int64($0.deleted))]))
            }))
        }
        return .object(out)
    }
}

extension Agent {
    /// Whether captures go with their own key: its file, or (`TokenStore=keyring`) a keyring item;
    /// a locked keyring counts as none.
    private func hasCaptureKey(_ node: NodeConfig) -> Bool {
        guard let url = node.url else { return false }
        guard node.usesKeyring else { return FileSystem.exists(node.captureKeyFile) }
        return ((try? Keyring.lookup(node: url, .captureKey)) ?? nil) != nil
    }

    /// Gathers the status without changing anything (the state store is opened read-only).
    public func status() throws(AgentError) -> StatusReport {
        let node = try nodeConfig()
        let store: StateStore?
        do { store = try StateStore(readOnlyAt: paths) } catch { throw .store(error) }
        var report = StatusReport(node: node.url?.description ?? "embedded local node (\(paths.localNodeDatabase))",
                                  paired: node.url != nil,
                                  captureKey: hasCaptureKey(node),
                                  device: DeviceIdentity.current(store: nil).actor)
        report.maxQueue = node.maxQueue
        var configs: [AdapterConfig] = []
        var configErrors: [String: String] = [:]
        // A broken adapter file should not hide the rest of the status: show it in its row.
        for file in (try? AdapterRegistry.configFiles(paths)) ?? [] {
            do { configs.append(try registry.loadConfig(file: file)) }
            catch { configErrors[String(FileSystem.baseName(file).dropLast(5))] = error.description }
        }
        do {
            let stats = try store?.adapterStats() ?? [:]
            for c in configs {
                let s = stats[c.name]
                report.adapters.append(.init(name: c.name, type: c.type, enabled: c.enabled, lastSynced: s?.lastSynced, lastScan: s?.lastScan,
                                             syncedCount: s?.syncedCount ?? 0, queued: s?.queued ?? 0, lastError: s?.lastError,
                                             anchorEntries: s?.anchorEntries ?? 0))
            }
            for (name, error) in configErrors.sorted(by: { $0.key < $1.key }) {
                report.adapters.append(.init(name: name, type: "?", enabled: false, syncedCount: 0, queued: 0, anchorEntries: 0, configError: error))
            }
            if let capture = stats["capture"] {
                report.adapters.append(.init(name: "capture", type: "capture", enabled: true, lastSynced: capture.lastSynced,
                                             syncedCount: capture.syncedCount, queued: capture.queued, anchorEntries: 0))
            }
            if let store {
                report.outbox = try store.outboxDepth()
                report.outboxBytes = try store.outboxBytes()
                report.deadLetters = try store.deadLetterCounts()
                report.recentDeadLetters = try store.recentDeadLetters(limit: 5)
                report.notes = try store.endpointNotes()
                if let t = try store.meta(IngestGate.retryNotBeforeKey).flatMap(Double.init), t > Date().timeIntervalSince1970 {
                    report.retryNotBefore = Date(timeIntervalSince1970: t)
                }
            }
        } catch { throw .store(error) }
        if node.url == nil {
            report.localNode = (try? LocalNode(readOnlyAt: paths.localNodeDatabase)?.holdings()) ?? []
        }
        return report
    }
}
