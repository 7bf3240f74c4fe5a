import FoundationEssentials

extension StateStore {
    // MARK: - Anchors

    func applyAnchor(_ anchor: AnchorUpdate, adapter: String, _ c: borrowing SQLiteConnection) throws(SQLiteError) {
        // A file's record can be megabytes (a calendar of 50 000 occurrences): bound where it
        // lies, not copied twice on its way in.
        try c.withStatement("INSERT OR REPLACE INTO anchors(adapter, key, value) VALUES(?1, ?2, ?3)") { (s) throws(SQLiteError) in
            for (key, value) in anchor.updates {
                try s.bind(1, text: adapter)
                try s.bind(2, text: key)
                try s.step(blobs: [(3, 0..<value.count)], in: value)
            }
        }
        for key in anchor.removals {
            try c.run("DELETE FROM anchors WHERE adapter = ? AND key = ?", [.text(adapter), .text(key)])
        }
    }

    public func anchor(for adapter: String) throws(StoreError) -> Anchor {
        try read { (c) throws(SQLiteError) -> Anchor in
            var entries: [String: Data] = [:]
            try c.query("SELECT key, value FROM anchors WHERE adapter = ?", [.text(adapter)]) { r in
                entries[r.text(0) ?? ""] = r.data(1); return true
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
