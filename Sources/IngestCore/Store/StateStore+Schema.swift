import FoundationEssentials

extension StateStore {
    /// Refuses a store of a newer schema before SQLite opens it (which, in WAL mode, would already
    /// make files beside it): the version is `PRAGMA user_version`, bytes 60–63 of the header.
    /// An older binary must never write into a layout it does not know.
    static func refuseNewerSchema(_ path: String) throws(StoreError) {
        guard let header = try? FileSystem.readBytes(path, limit: 100), header.count == 100,
              header.starts(with: Array("SQLite format 3\u{0}".utf8)) else { return }
        let found = header[60..<64].reduce(Int64(0)) { $0 << 8 | Int64($1) }
        if found > schemaVersion { throw .newerSchema(path: path, found: found, known: schemaVersion) }
    }

    static func migrate(_ db: SQLiteDatabase) throws(SQLiteError) {
        // The common case, an existing store, must not take the write lock just to look.
        guard try db.withConnection({ (c) throws(SQLiteError) -> Int64 in try c.scalar("PRAGMA user_version") }) < StateStore.schemaVersion else { return }
        try db.transaction { (c) throws(SQLiteError) in
            let version = try c.scalar("PRAGMA user_version")
            if version == 0 {
                try c.execute(StateStore.queueTables)
                try c.execute(StateStore.recordTables)
            } else {
                try StateStore.upgrade(c, from: version)
            }
            try c.execute("PRAGMA user_version = \(StateStore.schemaVersion)")
        }
    }

    /// Brings a store of an older schema to this one, step by step (see `Migrations/`).
    private static func upgrade(_ c: borrowing SQLiteConnection, from version: Int64) throws(SQLiteError) {
        if version < 4 { try migrateToRecords(c, from: version) }
    }

    /// The outbox, its lanes, anchors and the tables `status` reads: unchanged since version 1.
    static let queueTables = """
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
        """

    /// Adapters' records, in one generic pair of tables (since version 4).
    static let recordTables = """
        -- A record's identity is (space, group, key); shelf clusters runs of records of one kind,
        -- so an input listing one kind after another appends instead of rewriting every group's
        -- pages once per kind. `changes` counts new or changed records since the group was
        -- settled; `settled` is what its adapter derived from it last.
        CREATE TABLE records(space TEXT NOT NULL, shelf INTEGER NOT NULL, grp TEXT NOT NULL, key BLOB NOT NULL,
            value BLOB NOT NULL, PRIMARY KEY(space, shelf, grp, key)) WITHOUT ROWID;
        CREATE TABLE record_groups(space TEXT NOT NULL, grp TEXT NOT NULL, changes INTEGER NOT NULL DEFAULT 0, settled BLOB,
            PRIMARY KEY(space, grp)) WITHOUT ROWID;
        CREATE INDEX record_groups_changed ON record_groups(space) WHERE changes > 0;
        """
}
