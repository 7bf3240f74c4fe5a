import IngestCore

/// Commits an adapter's chunks one at a time and in order, while the adapter goes on reading
/// the next ones: the anchor never passes items that are not queued, and the cores are not idle
/// while SQLite writes.
struct ChunkCommitter<Sink: ItemSink> {
    let sink: Sink
    private var running: Task<Void, any Error>?

    init(_ sink: Sink) { self.sink = sink }

    /// Waits for the previous chunk's commit (rethrowing its error), then starts this one's.
    mutating func commit(_ items: [Item], anchor: AnchorUpdate) async throws {
        try await start { sink in try await sink.commit(items, anchor: anchor) }
    }

    /// Waits for the last commit.
    mutating func finish() async throws {
        try await running?.value
        running = nil
    }

    private mutating func start(_ commit: @escaping @Sendable (Sink) async throws -> Void) async throws {
        try await running?.value
        running = Task { [sink] in try await commit(sink) }
    }
}

extension ChunkCommitter where Sink: RecordSink {
    /// ``commit(_:anchor:)``, with records.
    mutating func commit(_ items: [Item], anchor: AnchorUpdate, records: RecordChanges) async throws {
        try await start { sink in try await sink.commit(items, anchor: anchor, records: records) }
    }
}
