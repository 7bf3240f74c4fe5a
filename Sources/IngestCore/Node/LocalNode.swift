import CSQLite
import FoundationEssentials

/// The embedded local node: with no node paired, batches land in `$STATE/local-node.db`
/// under the same contract as a real node (dedup on key and version, tombstones, limits,
/// the same counts), so a newcomer sees the agent work with no server.
public final class LocalNode: NodeTransport {
    public let db: SQLiteDatabase
    public var name: String { "embedded local node (\(db.path))" }
    public var hasCaptureKey: Bool { false }

    public static let maxItems = 1000
    public static let maxBodyBytes = 1 << 20

    public init(path: String) throws(StoreError) {
        do {
            // A new node is made whole in one go (see `createIfAbsent`); one made before finds its table
            // here. 8 KiB pages: a photo scan's checkpoints copy half as many (4 KiB before; 16 KiB
            // made each upsert's statement journal, held in memory, larger).
            try SQLiteDatabase.createIfAbsent(path) { (scratch) throws(SQLiteError) in
                try scratch.execute("PRAGMA page_size=8192;\n" + LocalNode.schema)
            }
            db = try SQLiteDatabase(path: path)
            try db.execute("""
                PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL;
                PRAGMA temp_store=MEMORY;  -- each multi-row upsert keeps a statement journal: in a temp file, 2000 writes per batch
                PRAGMA cache_size=-512;    -- KiB; it takes appends and key lookups, and SQLite's 2 MiB was a twentieth of a calendar run's peak
                """ + "\n" + LocalNode.schema)
            // Checkpointed at 1 MiB of WAL, after the commit that passes it: the node is written on
            // the transport lane only, so the copy and its fsyncs overlap the scan, and the last
            // connection's close (what a run waits for) finds at most about one batch to copy.
            let pageSize = try db.withConnection { (c) throws(SQLiteError) in try c.scalar("PRAGMA page_size") }
            try db.execute("PRAGMA wal_autocheckpoint=\(max(16, (1 << 20) / max(512, pageSize)))")
        } catch { throw StoreError.sqlite(error) }
    }

    private static let schema = """
        CREATE TABLE IF NOT EXISTS items(endpoint TEXT NOT NULL, source TEXT NOT NULL, key TEXT NOT NULL,
            version TEXT, deleted INTEGER NOT NULL, item BLOB NOT NULL, received_at REAL NOT NULL,
            UNIQUE(endpoint, source, key));   -- a rowid table: item rows are large, and WITHOUT ROWID rebalances them on every insert
        """

    /// Opens an existing local node for reading (`status`); nil when there is none.
    public init?(readOnlyAt path: String) {
        guard FileSystem.exists(path), let db = try? SQLiteDatabase(path: path, readOnly: true) else { return nil }
        self.db = db
    }

    public func post(endpoint: Endpoint, source: String, items: [OutboxEntry], credential: CredentialKind, trace: TraceID) -> NodeReply {
        guard (1...LocalNode.maxItems).contains(items.count),
              items.reduce(0, { $0 + $1.body.count + 1 }) + 512 <= LocalNode.maxBodyBytes else { return .tooLarge }
        return store(endpoint: endpoint, source: source, items: items)
    }

    /// What `post` does with a batch once it is within the limits of one request body, in one transaction.
    func store(endpoint: Endpoint, source: String, items: [OutboxEntry]) -> NodeReply {
        if let bad = items.firstIndex(where: { $0.key.isEmpty || $0.key.count > 512 }) {
            return .badRequest(message: "key must be 1 to 512 characters", index: bad)
        }
        let now = Date().timeIntervalSince1970
        do {
            let (accepted, duplicates) = try db.transaction { (c) throws(SQLiteError) -> (Int, Int) in
                // Runs of upserts go in multi-row statements, tombstones one by one, in batch order.
                // The row count says accepted (1) or duplicate (0), summed.
                var accepted = 0
                var i = 0
                while i < items.count {
                    if items[i].deleted {
                        accepted += try c.run("UPDATE items SET deleted = 1, received_at = ? WHERE endpoint = ? AND source = ? AND key = ? AND deleted = 0",
                                              [.double(now), .text(endpoint.rawValue), .text(source), .text(items[i].key)])
                        i += 1
                        continue
                    }
                    let n = items[i...].prefix { !$0.deleted }.count
                    accepted += try upsert(items[i..<(i + n)], endpoint: endpoint, source: source, at: now, c)
                    i += n
                }
                return (accepted, items.count - accepted)
            }
            return .stored(accepted: accepted, duplicates: duplicates)
        } catch {
            return .transient(message: error.description)
        }
    }

    /// Stores upserts with cached multi-row statements, their bodies bound in place.
    private func upsert(_ rows: ArraySlice<OutboxEntry>, endpoint: Endpoint, source: String, at now: Double,
                        _ c: borrowing SQLiteConnection) throws(SQLiteError) -> Int {
        try c.insert(rows, with: LocalNode.upsert) { (insert) throws(SQLiteError) in
            try insert.bind(1, text: endpoint.rawValue)
            try insert.bind(2, text: source)
            try insert.bind(3, now)
        } bind: { (insert, at, row, bodies) throws(SQLiteError) in
            try insert.bind(at, text: row.key)
            if let version = row.version { try insert.bind(at + 1, text: version) }
            bodies.append(at + 2, row.body)
        }
    }

    /// The upsert of items: `?1` endpoint, `?2` source, `?3` the time received, then key, version
    /// and body per item. An unchanged version is a duplicate: no row changes.
    private static let upsert = MultiRowInsert(
        "INSERT INTO items(endpoint, source, key, version, deleted, item, received_at) VALUES", shared: 3,
        row: [.shared(1), .shared(2), .own, .own, .sql("0"), .own, .shared(3)],
        tail: """
            ON CONFLICT(endpoint, source, key) DO UPDATE SET version = excluded.version, deleted = 0,
                item = excluded.item, received_at = excluded.received_at
            WHERE items.version IS NOT excluded.version
            """)

    public struct Holding: Sendable { public var endpoint: String; public var live: Int; public var deleted: Int }

    /// What the local node holds, per endpoint.
    public func holdings() throws(SQLiteError) -> [Holding] {
        try db.withConnection { (c) throws(SQLiteError) -> [Holding] in
            var out: [Holding] = []
            try c.query("SELECT endpoint, sum(deleted = 0), sum(deleted) FROM items GROUP BY endpoint ORDER BY endpoint") { r in
                out.append(Holding(endpoint: r.text(0) ?? "", live: Int(r.int(1)), deleted: Int(r.int(2)))); return true
            }
            return out
        }
    }
}
