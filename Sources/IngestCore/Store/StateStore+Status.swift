import FoundationEssentials

extension StateStore {
    // MARK: - Adapter stats

    /// The end of one adapter's scan, for ``recordScans(_:)``: `error` nil clears the last error.
    public struct ScanEnd: Sendable {
        public var adapter: String
        public var type: String
        public var error: String?
        public var at: Double
        public init(adapter: String, type: String, error: String?, at: Double = Date().timeIntervalSince1970) {
            self.adapter = adapter; self.type = type; self.error = error; self.at = at
        }
    }

    /// Records the end of a scan: `error` nil clears the last error.
    public func recordScan(adapter: String, type: String, error: String?) throws(StoreError) {
        try recordScans([ScanEnd(adapter: adapter, type: type, error: error)])
    }

    /// Records the ends of a run's scans in one transaction: each one alone rewrote the same
    /// page, so an idle run of 7 adapters wrote 7 pages of WAL for one page of change.
    public func recordScans(_ ends: [ScanEnd]) throws(StoreError) {
        guard !ends.isEmpty else { return }
        // Not fsynced: a power cut may only lose when the last scan was (the next commit's fsync
        // takes it along), and an idle run scans every adapter.
        try write(durable: false) { (c) throws(SQLiteError) in
            for end in ends {
                try c.run("""
                    INSERT INTO adapter_stats(adapter, type, last_scan, last_error, last_error_at) VALUES(?, ?, ?, ?, ?)
                    ON CONFLICT(adapter) DO UPDATE SET type = excluded.type, last_scan = excluded.last_scan,
                        last_error = excluded.last_error, last_error_at = coalesce(excluded.last_error_at, last_error_at)
                    """, [.text(end.adapter), .text(end.type), .double(end.at), end.error.map(SQLValue.text) ?? .null,
                          end.error == nil ? .null : .double(end.at)])
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
        try read { (c) throws(SQLiteError) -> [String: AdapterStats] in
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

    // MARK: - Status

    /// What `PRAGMA quick_check` finds wrong with the file; empty when it is sound.
    public func quickCheck() throws(StoreError) -> [String] {
        try read { (c) throws(SQLiteError) -> [String] in
            var problems: [String] = []
            try c.query("PRAGMA quick_check(10)") { r in
                if let line = r.text(0), line != "ok" { problems.append(line) }
                return true
            }
            return problems
        }
    }

    public func outboxDepth() throws(StoreError) -> [Endpoint: Int] {
        try countByEndpoint("SELECT l.endpoint, count(*) FROM outbox o JOIN lanes l ON l.id = o.lane GROUP BY l.endpoint")
    }

    /// Bytes of item bodies in the outbox (what ``OutboxBudget`` holds against `MaxQueue=`).
    public func outboxBytes() throws(StoreError) -> Int64 {
        try read { (c) throws(SQLiteError) -> Int64 in try c.scalar("SELECT coalesce(sum(length(body)), 0) FROM outbox") }
    }

    public func deadLetterCounts() throws(StoreError) -> [Endpoint: Int] {
        try countByEndpoint("SELECT endpoint, count(*) FROM dead_letters GROUP BY endpoint")
    }

    private func countByEndpoint(_ sql: String) throws(StoreError) -> [Endpoint: Int] {
        try read { (c) throws(SQLiteError) -> [Endpoint: Int] in
            var out: [Endpoint: Int] = [:]
            try c.query(sql) { r in
                if let e = Endpoint(rawValue: r.text(0) ?? "") { out[e] = Int(r.int(1)) }
                return true
            }
            return out
        }
    }

    public struct DeadLetter: Sendable {
        public var endpoint: String, key: String, adapter: String, error: String, failedAt: Date
    }

    public func recentDeadLetters(limit: Int) throws(StoreError) -> [DeadLetter] {
        try read { (c) throws(SQLiteError) -> [DeadLetter] in
            var out: [DeadLetter] = []
            try c.query("SELECT endpoint, key, adapter, error, failed_at FROM dead_letters ORDER BY id DESC LIMIT ?", [.int(Int64(limit))]) { r in
                out.append(DeadLetter(endpoint: r.text(0) ?? "", key: r.text(1) ?? "", adapter: r.text(2) ?? "",
                                      error: r.text(3) ?? "", failedAt: Date(timeIntervalSince1970: r.double(4))))
                return true
            }
            return out
        }
    }

    // MARK: - Node state

    /// A remark about one endpoint that `status` shows ("node too old for capture"); nil clears it.
    public func setEndpointNote(_ endpoint: Endpoint, _ note: String?) throws(StoreError) {
        try write { (c) throws(SQLiteError) in
            if let note {
                try c.run("INSERT OR REPLACE INTO endpoint_notes(endpoint, note, at) VALUES(?, ?, ?)",
                          [.text(endpoint.rawValue), .text(note), .double(Date().timeIntervalSince1970)])
            } else {
                try c.run("DELETE FROM endpoint_notes WHERE endpoint = ?", [.text(endpoint.rawValue)])
            }
        }
    }

    /// Forgets every endpoint's note: a new node has refused nothing yet.
    public func clearEndpointNotes() throws(StoreError) {
        try write { (c) throws(SQLiteError) in _ = try c.run("DELETE FROM endpoint_notes") }
    }

    public func endpointNotes() throws(StoreError) -> [Endpoint: String] {
        try read { (c) throws(SQLiteError) -> [Endpoint: String] in
            var out: [Endpoint: String] = [:]
            try c.query("SELECT endpoint, note FROM endpoint_notes") { r in
                if let e = Endpoint(rawValue: r.text(0) ?? "") { out[e] = r.text(1) }
                return true
            }
            return out
        }
    }

    public func meta(_ key: String) throws(StoreError) -> String? {
        try read { (c) throws(SQLiteError) -> String? in
            var value: String?
            try c.query("SELECT value FROM meta WHERE key = ?", [.text(key)]) { r in value = r.text(0); return false }
            return value
        }
    }

    public func setMeta(_ key: String, _ value: String?) throws(StoreError) {
        try write { (c) throws(SQLiteError) in
            if let value { try c.run("INSERT OR REPLACE INTO meta(key, value) VALUES(?, ?)", [.text(key), .text(value)]) }
            else { try c.run("DELETE FROM meta WHERE key = ?", [.text(key)]) }
        }
    }
}
