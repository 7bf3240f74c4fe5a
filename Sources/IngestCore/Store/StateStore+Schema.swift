import FoundationEssentials

extension StateStore {
    func migrate() throws(SQLiteError) {
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
            if version < 4 { try StateStore.migrateToRecords(c) }
            try c.execute("PRAGMA user_version = \(StateStore.schemaVersion)")
        }
    }

    /// Version 4: adapters' records in one generic pair of tables. What version 2 and 3 kept in
    /// their own (the journal of time-stamped entries, shared samples in buckets) moves into them
    /// unchanged in meaning: the journal becomes each adapter's `journal` group, keyed by time;
    /// samples keep their type's space, buckets become groups, lanes shelves.
    static func migrateToRecords(_ c: borrowing SQLiteConnection) throws(SQLiteError) {
        try c.execute("""
            -- A record's identity is (space, group, key); shelf clusters runs of records of one kind.
            -- `changes` counts new or changed records since the group was settled; `settled` is what
            -- its adapter derived from it last.
            CREATE TABLE records(space TEXT NOT NULL, shelf INTEGER NOT NULL, grp TEXT NOT NULL, key BLOB NOT NULL,
                value BLOB NOT NULL, PRIMARY KEY(space, shelf, grp, key)) WITHOUT ROWID;
            CREATE TABLE record_groups(space TEXT NOT NULL, grp TEXT NOT NULL, changes INTEGER NOT NULL DEFAULT 0, settled BLOB,
                PRIMARY KEY(space, grp)) WITHOUT ROWID;
            CREATE INDEX record_groups_changed ON record_groups(space) WHERE changes > 0;
            INSERT INTO records SELECT 'type/' || substr(source, 7), lane, bucket, key, value FROM samples;
            INSERT INTO record_groups SELECT 'type/' || substr(source, 7), bucket, dirt, sent FROM sample_buckets;
            DROP TABLE samples; DROP TABLE sample_buckets;
            """)
        var journal: [SQLValue] = []
        try c.query("SELECT adapter, t, data FROM journal") { r in
            journal += [.text(StateStore.space(instance: r.text(0) ?? "")), .int(0), .text("journal"),
                        .blob(StateRecord.orderedKey(r.double(1))), .blob(r.blob(2))]
            return true
        }
        try c.insertRows("INSERT INTO records(space, shelf, grp, key, value)", columns: 5, journal)
        try c.execute("DROP TABLE journal")
    }
}
