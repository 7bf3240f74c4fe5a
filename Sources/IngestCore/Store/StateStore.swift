import FoundationEssentials
import Synchronization

/// One queued item, as the gate reads it back from the outbox.
public struct OutboxEntry: Sendable {
    public var id: Int64
    public var lane: Int64
    public var endpoint: Endpoint
    public var source: String
    public var adapter: String
    public var key: String
    public var version: String?
    public var deleted: Bool
    /// The item's JSON, exactly as it goes into the batch.
    public var body: [UInt8]
}

/// A stream of items for one `(endpoint, source)`: the unit of fair draining.
public struct Lane: Sendable, Hashable, CustomStringConvertible {
    /// The row id in the `lanes` table; outbox rows carry it instead of two strings.
    public var id: Int64
    public var endpoint: Endpoint
    public var source: String
    public var description: String { "\(endpoint.rawValue)/\(source)" }
}

/// The agent's state file (`$STATE/state.db`, SQLite in WAL mode): the outbox, anchors,
/// dead letters, per-adapter stats and a little node state.
///
/// Every write is a transaction with `synchronous=FULL`, so a commit is on disk when it
/// returns: an adapter's items and its new anchor land together or not at all.
public final class StateStore: Sendable {
    public let db: SQLiteDatabase
    public var path: String { db.path }
    private let laneIDs = Locked<[String: Int64]>([:])

    static let schemaVersion: Int64 = 3

    /// Opens the store, creating the state directory (0700) and the schema when needed.
    public init(paths: Paths) throws(StoreError) {
        do { try FileSystem.ensureDirectory(paths.stateDir) } catch { throw StoreError.fileSystem(error) }
        do {
            db = try SQLiteDatabase(path: paths.stateDatabase)
            try db.withConnection { (c) throws(SQLiteError) in
                if try c.scalar("PRAGMA user_version") < StateStore.schemaVersion {
                    try c.execute("PRAGMA journal_mode=WAL")
                }
                try c.execute("PRAGMA synchronous=FULL; PRAGMA foreign_keys=OFF; PRAGMA temp_store=MEMORY")
            }
            try migrate()
        } catch {
            throw StoreError.sqlite(error)
        }
    }

    /// Opens an existing store read-only (for `--dry-run` and `status`); nil when there is none yet.
    public init?(readOnlyAt paths: Paths) throws(StoreError) {
        guard FileSystem.exists(paths.stateDatabase) else { return nil }
        do {
            db = try SQLiteDatabase(path: paths.stateDatabase, readOnly: true)
            _ = try db.withConnection { (c) throws(SQLiteError) in try c.scalar("SELECT count(*) FROM sqlite_master") }
        } catch { throw StoreError.sqlite(error) }
    }

    private func migrate() throws(SQLiteError) {
        // The common case, an existing store, must not take the write lock just to look.
        guard try db.withConnection({ (c) throws(SQLiteError) -> Int64 in try c.scalar("PRAGMA user_version") }) < StateStore.schemaVersion else { return }
        try db.transaction { (c) throws(SQLiteError) in
            let version = try c.scalar("PRAGMA user_version")
            if version < 1 { try c.execute("""
                -- Rows are only ever inserted and deleted, never updated. A new row's id is above every
                -- row that exists (a batch's rows exist until the node confirms them), so a batch is
                -- a contiguous id range of its lane and leaves with one range delete. No AUTOINCREMENT:
                -- its sequence table would be one more write per item.
                CREATE TABLE lanes(id INTEGER PRIMARY KEY, endpoint TEXT NOT NULL, source TEXT NOT NULL, UNIQUE(endpoint, source));
                CREATE TABLE outbox(
                    id INTEGER PRIMARY KEY, lane INTEGER NOT NULL, adapter TEXT NOT NULL,
                    key TEXT NOT NULL, version TEXT, deleted INTEGER NOT NULL DEFAULT 0,
                    body BLOB NOT NULL, enqueued_at REAL NOT NULL);
                CREATE INDEX outbox_lane ON outbox(lane, id);
                CREATE TABLE anchors(adapter TEXT NOT NULL, key TEXT NOT NULL, value BLOB NOT NULL,
                    PRIMARY KEY(adapter, key)) WITHOUT ROWID;
                CREATE TABLE adapter_stats(adapter TEXT PRIMARY KEY, type TEXT NOT NULL,
                    synced_count INTEGER NOT NULL DEFAULT 0, last_synced REAL, last_scan REAL,
                    last_error TEXT, last_error_at REAL);
                CREATE TABLE dead_letters(id INTEGER PRIMARY KEY, endpoint TEXT NOT NULL, source TEXT NOT NULL,
                    adapter TEXT NOT NULL, key TEXT NOT NULL, body BLOB NOT NULL, error TEXT NOT NULL, failed_at REAL NOT NULL);
                CREATE TABLE endpoint_notes(endpoint TEXT PRIMARY KEY, note TEXT NOT NULL, at REAL NOT NULL);
                CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
                """) }
            if version < 2 { try c.execute("""
                -- Time-stamped samples an adapter keeps beside its anchor (gpsd fixes), one row per
                -- chunk; `resync` forgets the anchor but keeps these, so it re-derives from them.
                CREATE TABLE journal(adapter TEXT NOT NULL, t REAL NOT NULL, data BLOB NOT NULL,
                    PRIMARY KEY(adapter, t)) WITHOUT ROWID;
                """) }
            if version < 3 { try c.execute("""
                -- Samples an adapter type keeps (health measurements), per node source so every
                -- instance shares them; an export read twice stores each sample once. Keyed by
                -- bucket first: exports are time-ordered, so inserts append to the B-tree.
                -- The encoded sample's identity is its own key (no hash to compute per sample).
                -- Clustered by lane first: an export lists one kind of sample after another, each in
                -- time order, so its rows land after one another instead of in every day's pages
                -- once per kind (which wrote each page again and again).
                CREATE TABLE samples(source TEXT NOT NULL, lane INTEGER NOT NULL, bucket TEXT NOT NULL, key BLOB NOT NULL,
                    value BLOB NOT NULL, PRIMARY KEY(source, lane, bucket, key)) WITHOUT ROWID;
                -- `dirt` counts new samples since the bucket's items last went out; `sent` is what did.
                CREATE TABLE sample_buckets(source TEXT NOT NULL, bucket TEXT NOT NULL, dirt INTEGER NOT NULL DEFAULT 0, sent BLOB,
                    PRIMARY KEY(source, bucket)) WITHOUT ROWID;
                CREATE INDEX sample_buckets_dirty ON sample_buckets(source) WHERE dirt > 0;
                """) }
            try c.execute("PRAGMA user_version = \(StateStore.schemaVersion)")
        }
    }

    @discardableResult
    private func wrap<R: Sendable>(_ body: () throws(SQLiteError) -> R) throws(StoreError) -> R {
        do { return try body() } catch { throw StoreError.sqlite(error) }
    }

    // MARK: - Queueing

    /// Queues `items` from adapter instance `adapter` and applies its anchor changes, in one
    /// transaction. Adapters queue only what changed (their anchors say what that is); a re-sent
    /// item is harmless because the node dedups on key and version.
    /// - Returns: how many items were queued.
    @discardableResult
    public func commit(adapter: String, source: String, items: [Item], anchor: AnchorChanges) throws(StoreError) -> Int {
        let now = Date().timeIntervalSince1970
        // Samples alone can be read again from their source: the anchor that says they were read
        // comes in a later, durable commit, whose fsync takes them along. A large export is
        // stored in dozens of chunks, and an fsync each took most of its import time.
        var samplesOnly = anchor
        samplesOnly.samples = []
        let durable = !(items.isEmpty && samplesOnly.isEmpty)
        return try wrap { () throws(SQLiteError) -> Int in
            try db.transaction(durable: durable) { (c) throws(SQLiteError) -> Int in
                var lanes: [Endpoint: Int64] = [:]
                var rows: [SQLValue] = []
                rows.reserveCapacity(items.count * 7)
                for item in items {
                    let lane: Int64
                    if let known = lanes[item.endpoint] { lane = known } else {
                        lane = try laneID(item.endpoint, source, c); lanes[item.endpoint] = lane
                    }
                    rows += [.int(lane), .text(adapter), .text(item.key), item.version.map(SQLValue.text) ?? .null,
                             .int(item.deleted ? 1 : 0), .blob(item.json), .double(now)]
                }
                try c.insertRows("INSERT INTO outbox(lane, adapter, key, version, deleted, body, enqueued_at)", columns: 7, rows)
                for (key, value) in anchor.updates {
                    try c.run("INSERT OR REPLACE INTO anchors(adapter, key, value) VALUES(?, ?, ?)", [.text(adapter), .text(key), .blob(Array(value))])
                }
                for key in anchor.removals {
                    try c.run("DELETE FROM anchors WHERE adapter = ? AND key = ?", [.text(adapter), .text(key)])
                }
                for entry in anchor.journal {
                    try c.run("INSERT OR REPLACE INTO journal(adapter, t, data) VALUES(?, ?, ?)", [.text(adapter), .double(entry.time), .blob(entry.data)])
                }
                if let before = anchor.journalPruneBefore {
                    try c.run("DELETE FROM journal WHERE adapter = ? AND t < ?", [.text(adapter), .double(before)])
                }
                try storeSamples(anchor.samples, source: source, c)
                for (bucket, settled) in anchor.settled {
                    try c.run("""
                        INSERT INTO sample_buckets(source, bucket, dirt, sent) VALUES(?, ?, 0, ?)
                        ON CONFLICT DO UPDATE SET sent = excluded.sent, dirt = max(0, dirt - ?)
                        """, [.text(source), .text(bucket), .blob(settled.sent), .int(settled.dirt)])
                }
                return items.count
            }
        }
    }

    private func laneID(_ endpoint: Endpoint, _ source: String, _ c: borrowing SQLiteConnection) throws(SQLiteError) -> Int64 {
        let name = endpoint.rawValue + "/" + source
        if let id = laneIDs.withLock({ $0[name] }) { return id }
        try c.run("INSERT OR IGNORE INTO lanes(endpoint, source) VALUES(?, ?)", [.text(endpoint.rawValue), .text(source)])
        let id = try c.scalar("SELECT id FROM lanes WHERE endpoint = ? AND source = ?", [.text(endpoint.rawValue), .text(source)])
        laneIDs.withLock { $0[name] = id }
        return id
    }

    /// Stores the samples that are new or whose value changed, bucket by bucket, and adds what
    /// each bucket gained to its dirt.
    private func storeSamples(_ samples: [StoredSample], source: String, _ c: borrowing SQLiteConnection) throws(SQLiteError) {
        guard !samples.isEmpty else { return }
        var start = 0
        var rows: [SQLValue] = []
        while start < samples.count {
            // Samples come in time order, so a bucket's arrive together.
            let bucket = samples[start].bucket
            var end = start
            rows.removeAll(keepingCapacity: true)
            while end < samples.count, samples[end].bucket == bucket {
                rows += [.text(source), .int(Int64(samples[end].lane)), .text(bucket), .blob(samples[end].key), .blob(samples[end].value)]
                end += 1
            }
            let added = try c.insertRows("INSERT INTO samples(source, lane, bucket, key, value)", columns: 5, rows,
                                         tail: "ON CONFLICT DO UPDATE SET value = excluded.value WHERE value IS NOT excluded.value")
            if added > 0 {
                try c.run("INSERT INTO sample_buckets(source, bucket, dirt) VALUES(?, ?, ?) ON CONFLICT DO UPDATE SET dirt = dirt + excluded.dirt",
                          [.text(source), .text(bucket), .int(Int64(added))])
            }
            start = end
        }
    }

    /// Buckets of `source` with samples their items do not cover yet, in order.
    public func dirtySampleBuckets(source: String) throws(StoreError) -> [String] {
        try wrap { () throws(SQLiteError) -> [String] in
            try db.withConnection { (c) throws(SQLiteError) -> [String] in
                var out: [String] = []
                try c.query("SELECT bucket FROM sample_buckets WHERE source = ? AND dirt > 0 ORDER BY bucket", [.text(source)]) { r in
                    out.append(r.text(0) ?? ""); return true
                }
                return out
            }
        }
    }

    public func sampleBucket(source: String, bucket: String) throws(StoreError) -> SampleBucket {
        try wrap { () throws(SQLiteError) -> SampleBucket in
            try db.withConnection { (c) throws(SQLiteError) -> SampleBucket in
                var result = SampleBucket(samples: [], sent: nil, dirt: 0)
                try c.query("SELECT dirt, sent FROM sample_buckets WHERE source = ? AND bucket = ?", [.text(source), .text(bucket)]) { r in
                    result.dirt = r.int(0); result.sent = r.isNull(1) ? nil : r.blob(1); return false
                }
                // One seek per lane: the table is clustered by lane, then bucket.
                try c.query("SELECT lane, key, value FROM samples WHERE source = ? AND lane IN (\(StoredSample.lanes)) AND bucket = ?",
                            [.text(source), .text(bucket)]) { r in
                    result.samples.append(StoredSample(bucket: bucket, lane: UInt8(truncatingIfNeeded: r.int(0)), key: r.blob(1), value: r.blob(2)))
                    return true
                }
                return result
            }
        }
    }

    /// Forgets what went out for `source`'s buckets, so the next scan sends them all again
    /// (`resync`, or pairing with another node). The samples stay.
    public func resetSampleBuckets(source: String?) throws(StoreError) {
        try wrap { () throws(SQLiteError) in
            try db.transaction { (c) throws(SQLiteError) in
                if let source { try c.run("UPDATE sample_buckets SET sent = NULL, dirt = dirt + 1 WHERE source = ?", [.text(source)]) }
                else { try c.run("UPDATE sample_buckets SET sent = NULL, dirt = dirt + 1") }
            }
        }
    }

    // MARK: - Anchors

    public func anchor(for adapter: String) throws(StoreError) -> Anchor {
        try wrap { () throws(SQLiteError) -> Anchor in
            try db.withConnection { (c) throws(SQLiteError) -> Anchor in
                var entries: [String: Data] = [:]
                try c.query("SELECT key, value FROM anchors WHERE adapter = ?", [.text(adapter)]) { r in
                    entries[r.text(0) ?? ""] = Data(r.blob(1)); return true
                }
                return Anchor(entries)
            }
        }
    }

    /// `adapter`'s journal entries from time `since` on, in time order.
    public func journal(for adapter: String, since: Double) throws(StoreError) -> [JournalEntry] {
        try wrap { () throws(SQLiteError) -> [JournalEntry] in
            try db.withConnection { (c) throws(SQLiteError) -> [JournalEntry] in
                var entries: [JournalEntry] = []
                try c.query("SELECT t, data FROM journal WHERE adapter = ? AND t >= ? ORDER BY t", [.text(adapter), .double(since)]) { r in
                    entries.append(JournalEntry(time: r.double(0), data: r.blob(1))); return true
                }
                return entries
            }
        }
    }

    /// Forgets where `adapter` was, so its next scan emits everything (`resync`).
    public func resetAnchor(for adapter: String) throws(StoreError) {
        try wrap { () throws(SQLiteError) in
            try db.transaction { (c) throws(SQLiteError) in
                try c.run("DELETE FROM anchors WHERE adapter = ?", [.text(adapter)])
            }
        }
    }

    /// Forgets every adapter's anchor: pairing with another node makes the next run send it everything.
    public func resetAllAnchors() throws(StoreError) {
        try wrap { () throws(SQLiteError) in
            try db.transaction { (c) throws(SQLiteError) in
                try c.run("DELETE FROM anchors")
                try c.run("UPDATE sample_buckets SET sent = NULL, dirt = dirt + 1")
            }
        }
    }

    // MARK: - Draining

    /// The lanes that have queued items.
    public func lanes() throws(StoreError) -> [Lane] {
        try wrap { () throws(SQLiteError) -> [Lane] in
            try db.withConnection { (c) throws(SQLiteError) -> [Lane] in
                var lanes: [Lane] = []
                try c.query("SELECT id, endpoint, source FROM lanes l WHERE EXISTS (SELECT 1 FROM outbox WHERE lane = l.id) ORDER BY id") { r in
                    if let e = Endpoint(rawValue: r.text(1) ?? "") { lanes.append(Lane(id: r.int(0), endpoint: e, source: r.text(2) ?? "")) }
                    return true
                }
                return lanes
            }
        }
    }

    /// Whether any `endpoint` item is queued: cheap enough to ask before every batch.
    public func hasQueued(_ endpoint: Endpoint) throws(StoreError) -> Bool {
        try wrap { () throws(SQLiteError) -> Bool in
            try db.withConnection { (c) throws(SQLiteError) -> Bool in
                try c.scalar("SELECT EXISTS (SELECT 1 FROM lanes l JOIN outbox o ON o.lane = l.id WHERE l.endpoint = ?)", [.text(endpoint.rawValue)]) != 0
            }
        }
    }

    /// The oldest items of `lane` after `afterID`, at most `maxItems` and `maxBytes` of item JSON
    /// (always at least one item, so an oversized one still reaches the node and its 413).
    public func nextBatch(_ lane: Lane, after afterID: Int64, maxItems: Int, maxBytes: Int) throws(StoreError) -> [OutboxEntry] {
        try wrap { () throws(SQLiteError) -> [OutboxEntry] in
            try db.withConnection { (c) throws(SQLiteError) -> [OutboxEntry] in
                var batch: [OutboxEntry] = []
                var bytes = 0
                try c.query("""
                    SELECT id, adapter, key, version, deleted, body FROM outbox
                    WHERE lane = ? AND id > ? ORDER BY id LIMIT ?
                    """, [.int(lane.id), .int(afterID), .int(Int64(maxItems))]) { r in
                    let body = r.blob(5)
                    if !batch.isEmpty && bytes + body.count + 1 > maxBytes { return false }
                    bytes += body.count + 1
                    batch.append(OutboxEntry(id: r.int(0), lane: lane.id, endpoint: lane.endpoint, source: lane.source,
                                             adapter: r.text(1) ?? "", key: r.text(2) ?? "", version: r.text(3),
                                             deleted: r.int(4) != 0, body: body))
                    return true
                }
                return batch
            }
        }
    }

    /// The node stored these (200): drop them from the outbox and count them as synced.
    /// `entries` is a run of one lane in id order (a batch or a slice of one), so one range delete does it.
    public func delivered(_ entries: some Collection<OutboxEntry>) throws(StoreError) {
        guard let first = entries.first else { return }
        let now = Date().timeIntervalSince1970
        var perAdapter: [String: Int] = [:]
        var last = first.id
        for e in entries {
            precondition(e.lane == first.lane && e.id >= last, "delivered() takes one lane's entries in id order")
            last = e.id
            perAdapter[e.adapter, default: 0] += 1
        }
        try wrap { () throws(SQLiteError) in
            // Without an fsync: a deletion lost to a power cut only makes the node see the batch
            // again, which it answers with duplicates. Queueing stays synchronous=FULL.
            try db.transaction(durable: false) { (c) throws(SQLiteError) in
                try c.run("DELETE FROM outbox WHERE lane = ? AND id BETWEEN ? AND ?", [.int(first.lane), .int(first.id), .int(last)])
                for (adapter, count) in perAdapter {
                    try c.run("""
                        INSERT INTO adapter_stats(adapter, type, synced_count, last_synced) VALUES(?, '', ?, ?)
                        ON CONFLICT(adapter) DO UPDATE SET synced_count = synced_count + excluded.synced_count, last_synced = excluded.last_synced
                        """, [.text(adapter), .int(Int64(count)), .double(now)])
                }
            }
        }
    }

    /// The node refused these for good (400): move them to the dead-letter table with its message.
    public func deadLetter(_ entries: some Collection<OutboxEntry>, error: String) throws(StoreError) {
        let now = Date().timeIntervalSince1970
        try wrap { () throws(SQLiteError) in
            try db.transaction { (c) throws(SQLiteError) in
                for e in entries {
                    try c.run("INSERT INTO dead_letters(endpoint, source, adapter, key, body, error, failed_at) VALUES(?, ?, ?, ?, ?, ?, ?)",
                              [.text(e.endpoint.rawValue), .text(e.source), .text(e.adapter), .text(e.key), .blob(e.body), .text(error), .double(now)])
                    try c.run("DELETE FROM outbox WHERE id = ?", [.int(e.id)])
                }
            }
        }
    }

    // MARK: - Adapter stats

    /// Records the end of a scan: `error` nil clears the last error.
    public func recordScan(adapter: String, type: String, error: String?) throws(StoreError) {
        let now = Date().timeIntervalSince1970
        try wrap { () throws(SQLiteError) in
            try db.transaction { (c) throws(SQLiteError) in
                try c.run("""
                    INSERT INTO adapter_stats(adapter, type, last_scan, last_error, last_error_at) VALUES(?, ?, ?, ?, ?)
                    ON CONFLICT(adapter) DO UPDATE SET type = excluded.type, last_scan = excluded.last_scan,
                        last_error = excluded.last_error, last_error_at = coalesce(excluded.last_error_at, last_error_at)
                    """, [.text(adapter), .text(type), .double(now), error.map(SQLValue.text) ?? .null, error == nil ? .null : .double(now)])
            }
        }
    }

    public struct AdapterStats: Sendable {
        public var adapter: String
        public var syncedCount: Int64
        public var lastSynced: Date?
        public var lastScan: Date?
        public var lastError: String?
        public var anchorEntries: Int64
        public var queued: Int64
    }

    public func adapterStats() throws(StoreError) -> [String: AdapterStats] {
        try wrap { () throws(SQLiteError) -> [String: AdapterStats] in
            try db.withConnection { (c) throws(SQLiteError) -> [String: AdapterStats] in
                var out: [String: AdapterStats] = [:]
                func date(_ r: SQLiteRow, _ i: Int32) -> Date? { r.isNull(i) ? nil : Date(timeIntervalSince1970: r.double(i)) }
                try c.query("SELECT adapter, synced_count, last_synced, last_scan, last_error FROM adapter_stats") { r in
                    let name = r.text(0) ?? ""
                    out[name] = AdapterStats(adapter: name, syncedCount: r.int(1), lastSynced: date(r, 2), lastScan: date(r, 3),
                                             lastError: r.text(4), anchorEntries: 0, queued: 0)
                    return true
                }
                try c.query("SELECT adapter, count(*) FROM anchors GROUP BY adapter") { r in
                    let name = r.text(0) ?? ""
                    out[name, default: AdapterStats(adapter: name, syncedCount: 0, anchorEntries: 0, queued: 0)].anchorEntries = r.int(1)
                    return true
                }
                try c.query("SELECT adapter, count(*) FROM outbox GROUP BY adapter") { r in
                    let name = r.text(0) ?? ""
                    out[name, default: AdapterStats(adapter: name, syncedCount: 0, anchorEntries: 0, queued: 0)].queued = r.int(1)
                    return true
                }
                return out
            }
        }
    }

    // MARK: - Status

    public func outboxDepth() throws(StoreError) -> [Endpoint: Int] {
        try countByEndpoint("SELECT l.endpoint, count(*) FROM outbox o JOIN lanes l ON l.id = o.lane GROUP BY l.endpoint")
    }

    public func deadLetterCounts() throws(StoreError) -> [Endpoint: Int] {
        try countByEndpoint("SELECT endpoint, count(*) FROM dead_letters GROUP BY endpoint")
    }

    private func countByEndpoint(_ sql: String) throws(StoreError) -> [Endpoint: Int] {
        try wrap { () throws(SQLiteError) -> [Endpoint: Int] in
            try db.withConnection { (c) throws(SQLiteError) -> [Endpoint: Int] in
                var out: [Endpoint: Int] = [:]
                try c.query(sql) { r in
                    if let e = Endpoint(rawValue: r.text(0) ?? "") { out[e] = Int(r.int(1)) }
                    return true
                }
                return out
            }
        }
    }

    public struct DeadLetter: Sendable {
        public var endpoint: String, key: String, adapter: String, error: String, failedAt: Date
    }

    public func recentDeadLetters(limit: Int) throws(StoreError) -> [DeadLetter] {
        try wrap { () throws(SQLiteError) -> [DeadLetter] in
            try db.withConnection { (c) throws(SQLiteError) -> [DeadLetter] in
                var out: [DeadLetter] = []
                try c.query("SELECT endpoint, key, adapter, error, failed_at FROM dead_letters ORDER BY id DESC LIMIT ?", [.int(Int64(limit))]) { r in
                    out.append(DeadLetter(endpoint: r.text(0) ?? "", key: r.text(1) ?? "", adapter: r.text(2) ?? "",
                                          error: r.text(3) ?? "", failedAt: Date(timeIntervalSince1970: r.double(4))))
                    return true
                }
                return out
            }
        }
    }

    // MARK: - Node state

    /// A remark about one endpoint that `status` shows ("node too old for capture"); nil clears it.
    public func setEndpointNote(_ endpoint: Endpoint, _ note: String?) throws(StoreError) {
        try wrap { () throws(SQLiteError) in
            try db.transaction { (c) throws(SQLiteError) in
                if let note {
                    try c.run("INSERT OR REPLACE INTO endpoint_notes(endpoint, note, at) VALUES(?, ?, ?)",
                              [.text(endpoint.rawValue), .text(note), .double(Date().timeIntervalSince1970)])
                } else {
                    try c.run("DELETE FROM endpoint_notes WHERE endpoint = ?", [.text(endpoint.rawValue)])
                }
            }
        }
    }

    public func endpointNotes() throws(StoreError) -> [Endpoint: String] {
        try wrap { () throws(SQLiteError) -> [Endpoint: String] in
            try db.withConnection { (c) throws(SQLiteError) -> [Endpoint: String] in
                var out: [Endpoint: String] = [:]
                try c.query("SELECT endpoint, note FROM endpoint_notes") { r in
                    if let e = Endpoint(rawValue: r.text(0) ?? "") { out[e] = r.text(1) }
                    return true
                }
                return out
            }
        }
    }

    public func meta(_ key: String) throws(StoreError) -> String? {
        try wrap { () throws(SQLiteError) -> String? in
            try db.withConnection { (c) throws(SQLiteError) -> String? in
                var value: String?
                try c.query("SELECT value FROM meta WHERE key = ?", [.text(key)]) { r in value = r.text(0); return false }
                return value
            }
        }
    }

    public func setMeta(_ key: String, _ value: String?) throws(StoreError) {
        try wrap { () throws(SQLiteError) in
            try db.transaction { (c) throws(SQLiteError) in
                if let value { try c.run("INSERT OR REPLACE INTO meta(key, value) VALUES(?, ?)", [.text(key), .text(value)]) }
                else { try c.run("DELETE FROM meta WHERE key = ?", [.text(key)]) }
            }
        }
    }
}

/// A failure of the state store: one line naming the file and what went wrong.
public enum StoreError: Error, Sendable, CustomStringConvertible {
    case sqlite(SQLiteError)
    case fileSystem(FileSystemError)

    public var description: String {
        switch self {
        case .sqlite(let e): e.description
        case .fileSystem(let e): e.description
        }
    }
}
