import FoundationEssentials

extension StateStore {
    // MARK: - Anchors

    func applyAnchor(_ anchor: AnchorChanges, adapter: String, _ c: borrowing SQLiteConnection) throws(SQLiteError) {
        for (key, value) in anchor.updates {
            try c.run("INSERT OR REPLACE INTO anchors(adapter, key, value) VALUES(?, ?, ?)", [.text(adapter), .text(key), .blob(Array(value))])
        }
        for key in anchor.removals {
            try c.run("DELETE FROM anchors WHERE adapter = ? AND key = ?", [.text(adapter), .text(key)])
        }
    }

    public func anchor(for adapter: String) throws(StoreError) -> Anchor {
        try read { (c) throws(SQLiteError) -> Anchor in
            var entries: [String: Data] = [:]
            try c.query("SELECT key, value FROM anchors WHERE adapter = ?", [.text(adapter)]) { r in
                entries[r.text(0) ?? ""] = Data(r.blob(1)); return true
            }
            return Anchor(entries)
        }
    }

    /// Forgets where `adapter` was, so its next scan emits everything (`resync`).
    public func resetAnchor(for adapter: String) throws(StoreError) {
        try write { (c) throws(SQLiteError) in
            try c.run("DELETE FROM anchors WHERE adapter = ?", [.text(adapter)])
        }
    }

    /// Forgets every adapter's anchor and what it settled its records with: pairing with another
    /// node makes the next run send it everything.
    public func resetAllAnchors() throws(StoreError) {
        try write { (c) throws(SQLiteError) in
            try c.run("DELETE FROM anchors")
            try c.run("UPDATE record_groups SET settled = NULL, changes = changes + 1")
        }
    }
}
