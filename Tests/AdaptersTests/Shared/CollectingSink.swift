import Foundation
import IngestCore
import Synchronization

/// An `ItemSink` that keeps what an adapter commits and applies its anchor changes, so a test can
/// scan again from where the last scan left off, the way the state store would.
final class CollectingSink: ItemSink {
    private struct State {
        var items: [Item] = []
        var warnings: [String] = []
        var anchor = Anchor()
    }
    private let state = Mutex(State())

    init(anchor: Anchor = Anchor()) { state.withLock { $0.anchor = anchor } }

    func commit(_ items: [Item], anchor changes: AnchorChanges) async throws {
        state.withLock { s in
            s.items += items
            for key in changes.removals { s.anchor.entries[key] = nil }
            for (key, value) in changes.updates { s.anchor.entries[key] = value }
        }
    }

    func warn(_ message: String) async { state.withLock { $0.warnings.append(message) } }

    var items: [Item] { state.withLock { $0.items } }
    var warnings: [String] { state.withLock { $0.warnings } }
    var anchor: Anchor { state.withLock { $0.anchor } }

    /// A sink for the next scan: same anchor, nothing collected yet.
    func next() -> CollectingSink { CollectingSink(anchor: anchor) }
}
