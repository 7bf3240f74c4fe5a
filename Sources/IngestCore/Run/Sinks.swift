import FoundationEssentials
import Synchronization

/// Where a scan's items go.
public enum ScanTarget: Sendable {
    /// Queued in the state store for the gate; `onCommit` runs after each durable commit that
    /// queued something (`run` and `watch` wake their drain loop with it).
    case queue(StateStore, onCommit: @Sendable () -> Void = {})
    /// `run --dry-run`: each item goes to `show` as one JSON line; anchors and records land in a
    /// throwaway copy, so the scan reads back what it wrote, exactly as `run` would.
    case preview(PreviewStore, show: @Sendable (String) -> Void)

    var store: StateStore {
        switch self {
        case .queue(let store, _): store
        case .preview(let preview, _): preview.store
        }
    }
}

/// Takes one adapter instance's chunks to its scan target, each with its anchor update and,
/// for a ``RecordKeeping`` adapter, its record changes.
final class ScanSink: RecordSink {
    let target: ScanTarget
    let adapter: String
    let source: String
    let records: AdapterRecords
    private let space: String?
    let queued = Atomic<Int>(0)
    let warnings = Atomic<Int>(0)
    let progressLine: ProgressLine
    /// `MaxQueue=` for the commits this sink queues; nil where nothing limits them (live following).
    private let budget: OutboxBudget?

    init(_ target: ScanTarget, adapter: String, source: String, space: String?, budget: OutboxBudget? = nil) {
        self.target = target; self.adapter = adapter; self.source = source; self.space = space; self.budget = budget
        records = AdapterRecords(store: target.store, space: space)
        progressLine = ProgressLine("scanning \(adapter)")
    }

    func commit(_ items: [Item], anchor: AnchorUpdate, records: RecordChanges) async throws {
        switch target {
        case .queue(let store, let onCommit):
            if let budget, !items.isEmpty { try budget.take(items.reduce(0) { $0 + Int64($1.json.count) }) }
            let changed = try store.commit(adapter: adapter, source: source, items: items, anchor: anchor, records: records, space: space)
            queued.add(changed, ordering: .relaxed)
            if changed > 0 { onCommit() }
        case .preview(let preview, let show):
            try preview.store.commit(adapter: adapter, source: source, items: [], anchor: anchor, records: records, space: space)
            if !items.isEmpty { show(previewLines(items)) }
            queued.add(items.count, ordering: .relaxed)
        }
    }

    /// `{"adapter": …, "endpoint": …, "source": …, "item": {…}}` per item, one per line.
    private func previewLines(_ items: [Item]) -> String {
        var head: [UInt8] = Array("{\"adapter\":".utf8), source: [UInt8] = Array(",\"source\":".utf8)
        JSONValue.encodeString(adapter, into: &head); head.append(contentsOf: ",\"endpoint\":".utf8)
        JSONValue.encodeString(self.source, into: &source); source.append(contentsOf: ",\"item\":".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(items.reduce(0) { $0 + $1.json.count + head.count + source.count + 32 })
        for item in items {
            out.append(contentsOf: head); JSONValue.encodeString(item.endpoint.rawValue, into: &out)
            out.append(contentsOf: source); out.append(contentsOf: item.json)
            out.append(contentsOf: "}\n".utf8)
        }
        return String(decoding: out, as: UTF8.self)
    }

    func warn(_ message: String) async {
        warnings.add(1, ordering: .relaxed)
        Log.warning("\(adapter): \(message)")
    }

    func progress(examined: Int, total: Int?) async { progressLine.update(examined, of: total, unit: "examined") }
}
