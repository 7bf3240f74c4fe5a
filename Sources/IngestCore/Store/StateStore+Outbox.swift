import FoundationEssentials

extension StateStore {
    // MARK: - Queueing

    /// Queues `items` from adapter instance `adapter` and applies its anchor update and, for a
    /// ``RecordKeeping`` adapter, its record changes (in `space`, see ``RecordScope``), in one
    /// transaction. Adapters queue only what changed (their anchors say what that is); a re-sent
    /// item is harmless because the node dedups on key and version.
    /// - Returns: how many items were queued.
    @discardableResult
    public func commit(adapter: String, source: String, items: [Item], anchor: AnchorUpdate,
                       records: RecordChanges = RecordChanges(), space: String? = nil) throws(StoreError) -> Int {
        let now = Date().timeIntervalSince1970
        return try commit(adapter: adapter, anchor: anchor, records: records, space: space, durable: anchor.durable || !items.isEmpty) { (c) throws(SQLiteError) -> Int in
            try queue(items, adapter: adapter, source: source, at: now, c)
            return items.count
        }
    }

    /// `body`, then `anchor` and `records` (in `space`), in one transaction.
    private func commit<R: Sendable>(adapter: String, anchor: AnchorUpdate, records: RecordChanges, space: String?, durable: Bool,
                                     _ body: (borrowing SQLiteConnection) throws(SQLiteError) -> R) throws(StoreError) -> R {
        if !records.isEmpty, space == nil { throw StoreError.misuse("\(adapter): \(RecordScopeError().description)") }
        return try write(durable: durable) { (c) throws(SQLiteError) -> R in
            let result = try body(c)
            try applyAnchor(anchor, adapter: adapter, c)
            if let space, !records.isEmpty { try applyRecords(records, space: space, c) }
            return result
        }
    }

    private func queue(_ items: [Item], adapter: String, source: String, at now: Double, _ c: borrowing SQLiteConnection) throws(SQLiteError) {
        var lanes: [Endpoint: Int64] = [:]
        var start = 0
        while start < items.count {
            // A run of one endpoint's items.
            let endpoint = items[start].endpoint
            let lane: Int64
            if let known = lanes[endpoint] { lane = known } else {
                lane = try laneID(endpoint, source, c); lanes[endpoint] = lane
            }
            var end = start + 1
            while end < items.count, items[end].endpoint == endpoint { end += 1 }
            try c.insert(items[start..<end], with: StateStore.outboxInsert) { (insert) throws(SQLiteError) in
                try insert.bind(1, lane)
                try insert.bind(2, text: adapter)
                try insert.bind(3, now)
            } bind: { (insert, at, item, bodies) throws(SQLiteError) in
                // A nil version stays NULL (bindings start cleared).
                try insert.bind(at, text: item.key)
                if let version = item.version { try insert.bind(at + 1, text: version) }
                try insert.bind(at + 2, Int64(item.deleted ? 1 : 0))
                bodies.append(at + 3, item.json)
            }
            start = end
        }
    }

    /// The insert of outbox rows of one lane: `?1` is the lane, `?2` the adapter, `?3` the
    /// time, then key, version, deleted and body per row.
    private static let outboxInsert = MultiRowInsert(
        "INSERT INTO outbox(lane, adapter, enqueued_at, key, version, deleted, body) VALUES", shared: 3,
        row: [.shared(1), .shared(2), .shared(3), .own, .own, .own, .own])

    private func laneID(_ endpoint: Endpoint, _ source: String, _ c: borrowing SQLiteConnection) throws(SQLiteError) -> Int64 {
        let name = endpoint.rawValue + "/" + source
        if let id = laneIDs.withLock({ $0[name] }) { return id }
        try c.run("INSERT OR IGNORE INTO lanes(endpoint, source) VALUES(?, ?)", [.text(endpoint.rawValue), .text(source)])
        let id = try c.scalar("SELECT id FROM lanes WHERE endpoint = ? AND source = ?", [.text(endpoint.rawValue), .text(source)])
        laneIDs.withLock { $0[name] = id }
        return id
    }

    // MARK: - Draining

    /// The lanes that have queued items.
    public func lanes() throws(StoreError) -> [Lane] {
        try read { (c) throws(SQLiteError) -> [Lane] in
            var lanes: [Lane] = []
            try c.query("SELECT id, endpoint, source FROM lanes l WHERE EXISTS (SELECT 1 FROM outbox WHERE lane = l.id) ORDER BY id") { r in
                if let e = Endpoint(rawValue: r.text(1) ?? "") { lanes.append(Lane(id: r.int(0), endpoint: e, source: r.text(2) ?? "")) }
                return true
            }
            return lanes
        }
    }

    /// Whether any `endpoint` item is queued: cheap enough to ask before every batch.
    public func hasQueued(_ endpoint: Endpoint) throws(StoreError) -> Bool {
        try read { (c) throws(SQLiteError) -> Bool in
            try c.scalar("SELECT EXISTS (SELECT 1 FROM lanes l JOIN outbox o ON o.lane = l.id WHERE l.endpoint = ?)", [.text(endpoint.rawValue)]) != 0
        }
    }

    /// The oldest items of `lane` after `afterID`, at most `maxItems` and `maxBytes` of item JSON
    /// (always at least one item, so an oversized one still reaches the node and its 413).
    public func nextBatch(_ lane: Lane, after afterID: Int64, maxItems: Int, maxBytes: Int) throws(StoreError) -> [OutboxEntry] {
        try read { (c) throws(SQLiteError) -> [OutboxEntry] in
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
        // Without an fsync: a deletion lost to a power cut only makes the node see the batch
        // again, which it answers with duplicates. Queueing stays synchronous=FULL.
        try write(durable: false) { (c) throws(SQLiteError) in
            try c.run("DELETE FROM outbox WHERE lane = ? AND id BETWEEN ? AND ?", [.int(first.lane), .int(first.id), .int(last)])
            for (adapter, count) in perAdapter { try countSynced(adapter: adapter, count, at: now, c) }
        }
    }

    private func countSynced(adapter: String, _ count: Int, at now: Double, _ c: borrowing SQLiteConnection) throws(SQLiteError) {
        try c.run("""
            INSERT INTO adapter_stats(adapter, type, synced_count, last_synced) VALUES(?, '', ?, ?)
            ON CONFLICT(adapter) DO UPDATE SET synced_count = synced_count + excluded.synced_count, last_synced = excluded.last_synced
            """, [.text(adapter), .int(Int64(count)), .double(now)])
    }

    /// The node refused these for good (400): move them to the dead-letter table with its message.
    public func deadLetter(_ entries: some Collection<OutboxEntry>, error: String) throws(StoreError) {
        let now = Date().timeIntervalSince1970
        try write { (c) throws(SQLiteError) in
            for e in entries {
                try c.run("INSERT INTO dead_letters(endpoint, source, adapter, key, body, error, failed_at) VALUES(?, ?, ?, ?, ?, ?, ?)",
                          [.text(e.endpoint.rawValue), .text(e.source), .text(e.adapter), .text(e.key), .blob(e.body), .text(error), .double(now)])
                try c.run("DELETE FROM outbox WHERE id = ?", [.int(e.id)])
            }
        }
    }

}
