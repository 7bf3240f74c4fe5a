import Foundation
import IngestCore
import Synchronization

/// A `RecordSink` over a real state store in a scratch folder: it keeps what an adapter commits
/// and applies its anchor changes and records the way `run` does, so a test can scan again from
/// where the last scan left off.
final class CollectingSink: RecordSink {
    /// The store and its folder, shared by a sink and the ones `next()` makes from it.
    final class Scratch: Sendable {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sink-\(UUID().uuidString.prefix(8))").path
        let store: StateStore
        init() { store = try! StateStore(paths: Paths(configDir: folder, stateDir: folder)) }
        deinit { try? FileManager.default.removeItem(atPath: folder) }
    }

    static let adapter = "test"
    private let scratch: Scratch
    private let collected = Locked<(items: [Item], warnings: [String])>(([], []))
    let records: AdapterRecords

    init(_ scratch: Scratch = Scratch()) {
        self.scratch = scratch
        records = AdapterRecords(store: scratch.store, space: StateStore.space(instance: CollectingSink.adapter))
    }

    /// A sink whose store already holds `anchor` (as an older build left it).
    convenience init(anchor: Anchor) {
        self.init()
        try! scratch.store.commit(adapter: CollectingSink.adapter, source: "test", items: [], anchor: AnchorUpdate(updates: anchor.entries))
    }

    func commit(_ items: [Item], anchor: AnchorUpdate, records: RecordChanges) async throws {
        try scratch.store.commit(adapter: CollectingSink.adapter, source: "test", items: [], anchor: anchor, records: records,
                                 space: StateStore.space(instance: CollectingSink.adapter))
        collected.withLock { $0.items += items }
    }

    func warn(_ message: String) async { collected.withLock { $0.warnings.append(message) } }

    var items: [Item] { collected.withLock { $0.items } }
    var warnings: [String] { collected.withLock { $0.warnings } }
    var anchor: Anchor { try! scratch.store.anchor(for: CollectingSink.adapter) }

    /// A sink for the next scan: same anchor and records, nothing collected yet.
    func next() -> CollectingSink { CollectingSink(scratch) }

    /// `resync`: the same records, the anchor forgotten.
    func forgettingAnchor() throws -> CollectingSink {
        try scratch.store.resetAnchor(for: CollectingSink.adapter)
        return CollectingSink(scratch)
    }
}
