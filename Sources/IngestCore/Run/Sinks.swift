import FoundationEssentials
import Synchronization

/// Queues an adapter's chunks in the state store, each with its anchor changes.
final class StoreSink: ItemSink {
    let store: StateStore
    let adapter: String
    let source: String
    let queued = Atomic<Int>(0)
    let warnings = Atomic<Int>(0)
    let progressLine: ProgressLine
    /// Called after each durable commit: `watch` wakes its drain loop with it.
    let onCommit: @Sendable () -> Void

    init(store: StateStore, adapter: String, source: String, onCommit: @escaping @Sendable () -> Void = {}) {
        self.store = store; self.adapter = adapter; self.source = source; self.onCommit = onCommit
        self.progressLine = ProgressLine("scanning \(adapter)")
    }

    func commit(_ items: [Item], anchor: AnchorChanges) async throws {
        let changed = try store.commit(adapter: adapter, source: source, items: items, anchor: anchor)
        queued.add(changed, ordering: .relaxed)
        if changed > 0 { onCommit() }
    }

    func warn(_ message: String) async {
        warnings.add(1, ordering: .relaxed)
        Log.warning("\(adapter): \(message)")
    }

    func progress(examined: Int, total: Int?) async { progressLine.update(examined, of: total, unit: "examined") }

    func journal(since: Double) async throws -> [JournalEntry] { try store.journal(for: adapter, since: since) }

    func dirtySampleBuckets() async throws -> [String] { try store.dirtySampleBuckets(source: source) }

    func sampleBucket(_ name: String) async throws -> SampleBucket { try store.sampleBucket(source: source, bucket: name) }
}

/// `run --dry-run`: prints each item that would be queued as one JSON line and changes nothing.
final class DryRunSink: ItemSink {
    let adapter: String
    let source: String
    /// The existing store, read-only, if there is one.
    let store: StateStore?
    let queued = Atomic<Int>(0)
    let warnings = Atomic<Int>(0)

    /// Samples a dry run would add and buckets it would settle, over the store's, in memory.
    let overlay = Locked(SampleOverlay())

    init(adapter: String, source: String, store: StateStore?) { self.adapter = adapter; self.source = source; self.store = store }

    func journal(since: Double) async throws -> [JournalEntry] { try store?.journal(for: adapter, since: since) ?? [] }

    func dirtySampleBuckets() async throws -> [String] {
        let stored = try store?.dirtySampleBuckets(source: source) ?? []
        return overlay.withLock { $0.dirtyBuckets(over: stored) }
    }

    func sampleBucket(_ name: String) async throws -> SampleBucket {
        let stored = try store?.sampleBucket(source: source, bucket: name) ?? SampleBucket(samples: [], sent: nil, dirt: 0)
        return overlay.withLock { $0.bucket(name, over: stored) }
    }

    func commit(_ items: [Item], anchor: AnchorChanges) async throws {
        if !anchor.samples.isEmpty || !anchor.settled.isEmpty {
            // Which samples are new is the store's to say, bucket by bucket.
            var stored: [String: [SampleBytes: [UInt8]]] = [:]
            for bucket in Set(anchor.samples.map(\.bucket)) {
                for sample in try store?.sampleBucket(source: source, bucket: bucket).samples ?? [] {
                    stored[bucket, default: [:]][SampleBytes(sample.key)] = sample.value
                }
            }
            overlay.withLock { $0.apply(anchor) { stored[$0.bucket]?[SampleBytes($0.key)] == $0.value } }
        }
        var out: [UInt8] = []
        for item in items {
            out.append(contentsOf: "{\"adapter\":".utf8); JSONValue.encodeString(adapter, into: &out)
            out.append(contentsOf: ",\"endpoint\":".utf8); JSONValue.encodeString(item.endpoint.rawValue, into: &out)
            out.append(contentsOf: ",\"source\":".utf8); JSONValue.encodeString(source, into: &out)
            out.append(contentsOf: ",\"item\":".utf8); out.append(contentsOf: item.json)
            out.append(contentsOf: "}\n".utf8)
        }
        Terminal.writeStdout(String(decoding: out, as: UTF8.self))
        queued.add(items.count, ordering: .relaxed)
    }

    func warn(_ message: String) async {
        warnings.add(1, ordering: .relaxed)
        Log.warning("\(adapter): \(message)")
    }
}
