import FoundationEssentials

/// Adapters' records (see ``StateRecord``): `records` holds them, `record_groups` each group's
/// change counter and what its adapter settled it with.
extension StateStore {
    /// The space of an adapter instance's own records.
    public static func space(instance: String) -> String { "adapter/" + instance }
    /// The space of the records every instance of an adapter type shares.
    public static func space(type: String) -> String { "type/" + type }

    /// Stores the records that are new or whose value changed, group by group, adds what each
    /// group gained to its changes, drops what the cutoffs name, and settles groups.
    func applyRecords(_ changes: RecordChanges, space: String, _ c: borrowing SQLiteConnection) throws(SQLiteError) {
        // Records of one group come together (an input read in order): each run is stored by
        // multi-row statements, and adds to its group's counter once.
        let records = try changes.merge.map { (merge) throws(SQLiteError) in try merged(changes.records, by: merge, space: space, c) } ?? changes.records
        var gained: [(group: String, added: Int)] = []
        var start = 0
        while start < records.count {
            let group = records[start].group
            var end = start + 1
            while end < records.count, records[end].group == group { end += 1 }
            let added = try c.insert(records[start..<end], with: StateStore.upsert) { (insert) throws(SQLiteError) in
                try insert.bind(1, text: space)
                try insert.bind(2, text: group)
            } bind: { (insert, at, record, blobs) throws(SQLiteError) in
                try insert.bind(at, Int64(record.shelf))
                blobs.append(at + 1, record.key)
                blobs.append(at + 2, record.value)
            }
            if added > 0 { gained.append((group, added)) }
            start = end
        }
        for (group, added) in gained {
            try c.run("INSERT INTO record_groups(space, grp, changes) VALUES(?, ?, ?) ON CONFLICT DO UPDATE SET changes = changes + excluded.changes",
                      [.text(space), .text(group), .int(Int64(added))])
        }
        for cutoff in changes.cutoffs {
            try c.run(StateStore.heldShelves + " DELETE FROM records WHERE space = ?1 AND shelf IN (SELECT shelf FROM held) AND grp = ?2 AND key < ?3",
                      [.text(space), .text(cutoff.group), .blob(cutoff.key)])
        }
        for (group, settled) in changes.settled {
            try c.run("""
                INSERT INTO record_groups(space, grp, changes, settled) VALUES(?, ?, 0, ?)
                ON CONFLICT DO UPDATE SET settled = excluded.settled, changes = max(0, changes - ?)
                """, [.text(space), .text(group), .blob(settled.state), .int(settled.changes)])
        }
    }

    /// `records` with each one whose key is stored already, or written before in this commit,
    /// merged into the value there, in the order of their keys' first writes; those that leave
    /// the stored value as it was are dropped.
    private func merged(_ records: [StateRecord], by merge: RecordMerge, space: String, _ c: borrowing SQLiteConnection) throws(SQLiteError) -> [StateRecord] {
        struct ID: Hashable { var group: String, shelf: UInt8, key: [UInt8] }
        var out: [(record: StateRecord, stored: [UInt8]?)] = []
        var place: [ID: Int] = [:]
        for record in records {
            let id = ID(group: record.group, shelf: record.shelf, key: record.key)
            if let at = place[id] { out[at].record.value = merge(record, out[at].record.value); continue }
            var stored: [UInt8]?
            try c.query("SELECT value FROM records WHERE space = ? AND shelf = ? AND grp = ? AND key = ?",
                        [.text(space), .int(Int64(record.shelf)), .text(record.group), .blob(record.key)]) { r in stored = r.blob(0); return false }
            var kept = record
            if let stored { kept.value = merge(record, stored) }
            place[id] = out.count
            out.append((kept, stored))
        }
        return out.compactMap { $0.record.value == $0.stored ? nil : $0.record }
    }

    /// The upsert of records of one group: `?1` is the space, `?2` the group, then shelf, key and
    /// value per row.
    private static let upsert = MultiRowInsert(
        "INSERT INTO records(space, shelf, grp, key, value) VALUES", shared: 2,
        row: [.shared(1), .own, .shared(2), .own, .own],
        tail: "ON CONFLICT DO UPDATE SET value = excluded.value WHERE value IS NOT excluded.value")

    /// `held`, the shelves space `?1` has records on, found by one index seek each: a query of
    /// one group then seeks it on each of them instead of reading the space's every record.
    private static let heldShelves = """
        WITH RECURSIVE held(shelf) AS (
            SELECT min(shelf) FROM records WHERE space = ?1
            UNION ALL SELECT (SELECT min(shelf) FROM records WHERE space = ?1 AND shelf > held.shelf) FROM held WHERE held.shelf IS NOT NULL)
        """

    /// One index seek per group: a shelf's groups without reading their records.
    func groups(onShelf shelf: UInt8, space: String) throws(StoreError) -> [String] {
        try read { (c) throws(SQLiteError) -> [String] in
            var out: [String] = []
            while true {
                var next: String?
                let binds: [SQLValue] = [.text(space), .int(Int64(shelf))] + (out.last.map { [.text($0)] } ?? [])
                try c.query("SELECT grp FROM records WHERE space = ? AND shelf = ?" + (out.isEmpty ? "" : " AND grp > ?") + " ORDER BY grp LIMIT 1",
                            binds) { r in next = r.text(0); return false }
                guard let next else { return out }
                out.append(next)
            }
        }
    }

    func changedGroups(space: String) throws(StoreError) -> [String] {
        try read { (c) throws(SQLiteError) -> [String] in
            var out: [String] = []
            try c.query("SELECT grp FROM record_groups WHERE space = ? AND changes > 0 ORDER BY grp", [.text(space)]) { r in
                out.append(r.text(0) ?? ""); return true
            }
            return out
        }
    }

    func group(_ name: String, space: String) throws(StoreError) -> RecordGroup {
        try read { (c) throws(SQLiteError) -> RecordGroup in
            var result = RecordGroup()
            (result.changes, result.settled) = try groupRow(name, space: space, c)
            try c.query(StateStore.heldShelves + " SELECT shelf, key, value FROM records WHERE space = ?1 AND shelf IN (SELECT shelf FROM held) AND grp = ?2",
                        [.text(space), .text(name)]) { r in
                result.records.append(StateRecord(group: name, shelf: UInt8(truncatingIfNeeded: r.int(0)), key: r.blob(1), value: r.blob(2)))
                return true
            }
            return result
        }
    }

    func settled(in group: String, space: String) throws(StoreError) -> [UInt8]? {
        try read { (c) throws(SQLiteError) -> [UInt8]? in try groupRow(group, space: space, c).settled }
    }

    /// A group's change counter and settled state (0 and nil for a group never written).
    private func groupRow(_ name: String, space: String, _ c: borrowing SQLiteConnection) throws(SQLiteError) -> (changes: Int64, settled: [UInt8]?) {
        var row: (changes: Int64, settled: [UInt8]?) = (0, nil)
        try c.query("SELECT changes, settled FROM record_groups WHERE space = ? AND grp = ?", [.text(space), .text(name)]) { r in
            row = (r.int(0), r.isNull(1) ? nil : r.blob(1)); return false
        }
        return row
    }

    func records(in group: String, shelf: UInt8, from key: [UInt8], space: String) throws(StoreError) -> [StateRecord] {
        try read { (c) throws(SQLiteError) -> [StateRecord] in
            var out: [StateRecord] = []
            try c.query("SELECT key, value FROM records WHERE space = ? AND shelf = ? AND grp = ? AND key >= ? ORDER BY key",
                        [.text(space), .int(Int64(shelf)), .text(group), .blob(key)]) { r in
                out.append(StateRecord(group: group, shelf: shelf, key: r.blob(0), value: r.blob(1))); return true
            }
            return out
        }
    }

    /// Forgets what `space`'s groups were settled with, so its adapter derives them all again
    /// (`resync`). The records stay.
    public func resetSettled(space: String) throws(StoreError) {
        try write { (c) throws(SQLiteError) in
            try c.run("UPDATE record_groups SET settled = NULL, changes = changes + 1 WHERE space = ?", [.text(space)])
        }
    }
}
