import FoundationEssentials

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
