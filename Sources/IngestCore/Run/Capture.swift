import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// The quick-capture queue: a note becomes a `capture` item, durable in the outbox before
/// `capture` returns, and leaves the queue only on the node's 200 or 400.
public enum CaptureQueue {
    public static let source = "linux-capture"

    /// Makes one capture item per text. The key is a UUID made now, so two identical notes stay two notes.
    public static func items(_ texts: [String], via: String, at date: Date = Date()) -> [Item] {
        let capturedAt = date.rfc3339
        return texts.map { text in
            Item(endpoint: .capture, key: UUID().uuidString.lowercased(), versioned: false,   // a capture never changes
                 fields: ["text": .string(text), "captured_at": .string(capturedAt), "via": .string(via)])
        }
    }

    /// Queues the texts in one fsync'd transaction.
    public static func enqueue(_ texts: [String], via: String, store: StateStore) throws(StoreError) {
        try store.commit(adapter: "capture", source: source, items: items(texts, via: via), anchor: .none)
    }
}

extension Agent {
    /// `capture`: queues the texts durably, then tries to send them (and only captures) for a
    /// moment. Queued is done; sending is a bonus, and another process draining sends ours too.
    /// Queueing runs on the caller's thread (nonsending): called from the main thread, the note
    /// is durable before any worker thread is started.
    /// - Returns: true when sending was tried and stopped early: the captures wait in the queue.
    nonisolated(nonsending) public func capture(_ texts: [String], via: String) async throws(AgentError) -> Bool {
        let store = try openStore()
        do throws(StoreError) { try CaptureQueue.enqueue(texts, via: via, store: store) } catch { throw .store(error) }
        Log.info("queued \(texts.count) capture\(texts.count == 1 ? "" : "s")")
        Log.debug("capture durable at CLOCK_MONOTONIC \(monotonicNanoseconds()) ns")   // bench/run.sh measures start-to-durable by it
        guard let node = try? nodeConfig(), let gate = try? gate(store: store, node: node) else { return false }
        let report = await gate.drain(DrainPolicy(maxWait: 2, lockWait: 0, onlyCaptures: true))
        return report.stop != nil || !report.parked.isEmpty
    }
}
