import IngestCore

/// Commits an adapter's chunks one at a time and in order, while the adapter goes on reading
/// the next ones: the anchor never passes items that are not queued, and the cores are not idle
/// while SQLite writes.
struct ChunkCommitter<Sink: ItemSink> {
    let sink: Sink
    private var running: Task<Void, any Error>?

    init(_ sink: Sink) { self.sink = sink }

    /// Waits for the previous chunk's commit (rethrowing its error), then starts this one's.
    mutating func commit(_ items: [Item], anchor: AnchorChanges) async throws {
        try await running?.value
        running = Task { [sink] in try await sink.commit(items, anchor: anchor) }
    }

    /// Waits for the last commit.
    mutating func finish() async throws {
        try await running?.value
        running = nil
    }
}
