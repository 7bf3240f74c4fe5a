import FoundationEssentials

extension StateStore {
    /// Version 4: adapters' records, in one generic pair of tables (``recordTables``). Versions 2
    /// and 3 kept them in tables of their own (a journal of time-stamped entries per instance, and
    /// entries per node source in buckets); what they hold moves over unchanged in meaning: a
    /// journal becomes its instance's `journal` group keyed by time, buckets become groups of the
    /// type's space and their lanes shelves. A store of version 1 or 2 takes this step too.
    static func migrateToRecords(_ c: borrowing SQLiteConnection, from version: Int64) throws(SQLiteError) {
        try c.execute(recordTables)
        if version >= 3 { try c.execute("""
            INSERT INTO records SELECT 'type/' || substr(source, 7), lane, bucket, key, value FROM samples;
            INSERT INTO record_groups SELECT 'type/' || substr(source, 7), bucket, dirt, sent FROM sample_buckets;
            DROP TABLE samples; DROP TABLE sample_buckets;
            """) }
        if version >= 2 { try moveJournal(c) }
    }

    /// Version 2's journal (fixes per instance, by time) into each instance's `journal` group.
    private static func moveJournal(_ c: borrowing SQLiteConnection) throws(SQLiteError) {
        var journal: [(space: String, keyAndValue: [UInt8], keyCount: Int)] = []
        try c.query("SELECT adapter, t, data FROM journal") { r in
            let key = StateRecord.orderedKey(r.double(1))
            journal.append((StateStore.space(instance: r.text(0) ?? ""), key + r.blob(2), key.count))
            return true
        }
        try c.withStatement("INSERT INTO records(space, shelf, grp, key, value) VALUES(?1, 0, 'journal', ?2, ?3)") { (insert) throws(SQLiteError) in
            for entry in journal {
                try insert.bind(1, text: entry.space)
                try insert.step(blobs: [(2, 0..<entry.keyCount), (3, entry.keyCount..<entry.keyAndValue.count)], in: entry.keyAndValue)
            }
        }
        try c.execute("DROP TABLE journal")
    }
}
