import FoundationEssentials
import IngestCore

/// The part of a file adapter's scan that is the same for every file adapter: its anchor entries
/// (one per file or folder, under one prefix), which item keys each entry's files gave, and the
/// chunks that queue items together with the entries that say they were read.
///
/// A key that a deleted, moved or edited file no longer gives is sent as a tombstone only when no
/// other entry still holds it: a moved photo, or one of two copies deleted, sends nothing. What an
/// entry's bytes hold is the adapter's; the ledger sees the bytes and the keys it is told of.
struct FileLedger<Sink: ItemSink> {
    let prefix: String
    /// The entries as the last scan left them, by name (the anchor key without the prefix).
    let stored: [String: Data]
    /// Items queued per chunk, and entries written per chunk, at most.
    let itemsPerChunk: Int, entriesPerChunk: Int

    private var committer: ChunkCommitter<Sink>
    private var items: [Item] = []
    private var changes = AnchorUpdate()
    /// What every entry written this scan holds; stored entries not in here or `removed` are untouched.
    private var written: [String: Held] = [:]
    private var removed = Set<String>()
    /// Keys some entry held and no longer does: each is a tombstone unless another entry holds it.
    private var lost: [ItemKey] = []

    /// Takes the entries under `prefix` from `anchor`; any other entry is of an older layout and is removed.
    init(anchor: Anchor, prefix: String, into sink: Sink, itemsPerChunk: Int, entriesPerChunk: Int) {
        var stored: [String: Data] = [:]
        for (key, data) in anchor.entries {
            if key.hasPrefix(prefix) { stored[String(key.dropFirst(prefix.count))] = data } else { changes.removals.insert(key) }
        }
        self.prefix = prefix
        self.stored = stored
        self.itemsPerChunk = itemsPerChunk
        self.entriesPerChunk = entriesPerChunk
        committer = ChunkCommitter(sink)
    }

    mutating func queue(_ item: Item) { items.append(item) }

    /// Sets entry `name`, whose files now give `keys`.
    mutating func write(_ name: String, _ entry: Data, keys: [ItemKey]) { write(name, entry, holding: .keys(keys)) }

    /// Sets entry `name`, a ``FileRecord`` whose file now gives the items of its table.
    mutating func write(_ name: String, record entry: Data) { write(name, entry, holding: .record(entry)) }

    private mutating func write(_ name: String, _ entry: Data, holding: Held) {
        changes.updates[prefix + name] = entry
        written[name] = holding
    }

    /// Removes entry `name`; its files gave `keys`, and are gone.
    mutating func remove(_ name: String, keys: some Sequence<ItemKey>) {
        changes.removals.insert(prefix + name)
        removed.insert(name)
        lost += keys
    }

    /// Keys an entry written this scan held before and no longer does.
    mutating func lose(_ keys: some Sequence<ItemKey>) { lost += keys }

    /// Starts committing what is queued once a chunk is full; the next chunk is read meanwhile.
    mutating func commitIfFull() async throws {
        if items.count >= itemsPerChunk || changes.updates.count >= entriesPerChunk { try await flush() }
    }

    /// Commits what is queued, then `items` and `anchor` as a transaction of their own, in order.
    mutating func commit(_ items: [Item], anchor: AnchorUpdate) async throws {
        try await flush()
        try await committer.commit(items, anchor: anchor)
    }

    /// Queues a tombstone for every lost key that no entry holds any more, commits the rest, and
    /// waits for the last commit.
    ///
    /// - Parameter keysOfUntouched: The keys of a stored entry this scan neither wrote nor removed;
    ///   called only when some key was lost.
    mutating func finish(keysOfUntouched: (String, Data) -> [ItemKey] = { _, _ in [] }) async throws {
        if !lost.isEmpty {
            var gone = Set(lost)
            for (name, entry) in stored where written[name] == nil && !removed.contains(name) && !gone.isEmpty {
                gone.subtract(keysOfUntouched(name, entry))
            }
            for held in written.values where !gone.isEmpty {
                switch held {
                case .keys(let keys): gone.subtract(keys)
                case .record(let entry):
                    guard let table = FileRecord(entry)?.items else { continue }
                    gone = gone.filter { !table.contains($0) }
                }
            }
            for id in gone { items.append(Item.tombstone(endpoint: id.endpoint, key: id.key)) }
            lost = []
        }
        try await flush()
        try await committer.finish()
    }

    /// What an entry holds: the keys it was written with, or a file record, whose table is read
    /// again only if some key was lost (and looked up, not copied into a set: a calendar's table
    /// holds 50 000 keys). The record's bytes are the ones committed, so a large file's keys are
    /// not held twice while they are.
    private enum Held {
        case keys([ItemKey])
        case record(Data)
    }

    private mutating func flush() async throws {
        guard !items.isEmpty || !changes.isEmpty else { return }
        try await committer.commit(items, anchor: changes)
        items.removeAll(keepingCapacity: true); changes = AnchorUpdate()
    }
}

extension FileLedger where Sink: RecordSink {
    /// Commits what is queued, then `items`, `anchor` and `records` as a transaction of their own, in order.
    mutating func commit(_ items: [Item] = [], anchor: AnchorUpdate = .none, records: RecordChanges) async throws {
        try await flush()
        try await committer.commit(items, anchor: anchor, records: records)
    }
}
