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
        var journal: [Double: [UInt8]] = [:]
        var samples = SampleOverlay()
    }
    private let state = Mutex(State())

    init(anchor: Anchor = Anchor(), journal: [Double: [UInt8]] = [:], samples: SampleOverlay = SampleOverlay()) {
        state.withLock { $0.anchor = anchor; $0.journal = journal; $0.samples = samples }
    }

    func commit(_ items: [Item], anchor changes: AnchorChanges) async throws {
        state.withLock { s in
            s.items += items
            for key in changes.removals { s.anchor.entries[key] = nil }
            for (key, value) in changes.updates { s.anchor.entries[key] = value }
            for entry in changes.journal { s.journal[entry.time] = entry.data }
            if let before = changes.journalPruneBefore { s.journal = s.journal.filter { $0.key >= before } }
            s.samples.apply(changes) { _ in false }
        }
    }

    func journal(since: Double) async throws -> [JournalEntry] {
        state.withLock { s in s.journal.filter { $0.key >= since }.sorted { $0.key < $1.key }.map { JournalEntry(time: $0.key, data: $0.value) } }
    }

    func dirtySampleBuckets() async throws -> [String] { state.withLock { $0.samples.dirtyBuckets(over: []) } }

    func sampleBucket(_ name: String) async throws -> SampleBucket {
        state.withLock { $0.samples.bucket(name, over: SampleBucket(samples: [], sent: nil, dirt: 0)) }
    }

    func warn(_ message: String) async { state.withLock { $0.warnings.append(message) } }

    var items: [Item] { state.withLock { $0.items } }
    var warnings: [String] { state.withLock { $0.warnings } }
    var anchor: Anchor { state.withLock { $0.anchor } }

    /// A sink for the next scan: same anchor, nothing collected yet.
    func next() -> CollectingSink { state.withLock { CollectingSink(anchor: $0.anchor, journal: $0.journal, samples: $0.samples) } }
}
