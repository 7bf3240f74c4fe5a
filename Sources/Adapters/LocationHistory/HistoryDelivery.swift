import IngestCore

/// Queues the derived visits and trips whose version changed, day by day, and a tombstone for a
/// key no longer derived. Each UTC day group keeps, as its settled state, the keys and versions
/// of its items (a visit by its arrival, a trip by its start: a key always falls on the same
/// day) as they went out; that state is committed with the chunk that queued the day's last
/// item or a later one, so a crash before it sends the same again, which the node dedups. So a
/// run holds one day's table at a time, however many years the history spans.
///
/// Stores from before this layout kept one table for every day in the `days` group: it is read
/// once, counts as sent, and is emptied by the same run.
struct HistoryDelivery<Sink: RecordSink> {
    let records: AdapterRecords
    private var committer: ChunkCommitter<Sink>
    private var queued: [Item] = []
    /// Day states waiting for the next commit: never committed before their items are.
    private var settling = RecordChanges()
    private(set) var count = 0
    /// The one table of the earlier layout, while it is honoured; `derived` its keys seen so far.
    private var earlier: SentItems?
    private var derived = Set<String>()
    /// The `days` group's change counter as read: settled, with the earlier table emptied, last.
    private let indexChanges: Int64

    static var chunk: Int { 2000 }

    init(_ sink: Sink) throws {
        records = sink.records
        committer = ChunkCommitter(sink)
        let index = try records.group(HistoryRecords.daysGroup)
        if let table = index.settled, !table.isEmpty { earlier = SentItems(table) }
        indexChanges = index.changes
    }

    /// Sends a window's visits and trips of the days it gives against what went out for each
    /// of those days that has records or items (or had: a trip may start on a day without records).
    mutating func send(_ window: HistoryWindows.Window, days: [String]) async throws {
        func day(_ time: Double) -> Int { Int((time / 86_400).rounded(.down)) }
        let derived = window.derived
        // Both are in time order: the days given are one run of each (a slice, not a copy of years).
        let visits = HistoryDelivery.run(derived.visits, within: window.emit) { day($0.arrival) }
        let trips = HistoryDelivery.run(derived.trips, within: window.emit) { day($0.start.time) }
        let stored = days.map { HistoryTime.number(ofDay: $0) }.filter(window.emit.contains)
        let ends = stored + [visits.first?.arrival, visits.last?.arrival, trips.first?.start.time, trips.last?.start.time].compactMap { $0.map(day) }
        guard let first = ends.min(), let last = ends.max() else { return }
        var v = visits.startIndex, t = trips.startIndex
        for number in first...last {
            let group = HistoryRecords.group(day: HistoryTime.day(number: number))
            var items: [Item] = []
            while v < visits.endIndex, day(visits[v].arrival) == number { items.append(PlaceItems.item(visits[v])); v += 1 }
            while t < trips.endIndex, day(trips[t].start.time) == number { items.append(PlaceItems.item(trips[t])); t += 1 }
            var state = HistoryDayState()
            state.anchor = derived.anchors[group] ?? nil
            state.devices = derived.devices[group] ?? [:]
            try await send(items, day: group, state: state, changes: derived.changes[group] ?? 0)
        }
    }

    private static func run<T>(_ items: [T], within days: ClosedRange<Int>, day: (T) -> Int) -> ArraySlice<T> {
        let start = items.firstIndex { day($0) >= days.lowerBound } ?? items.count
        let end = items[start...].firstIndex { day($0) > days.upperBound } ?? items.count
        return items[start..<end]
    }

    /// One day: its changed items, tombstones for its keys no longer derived, its new state.
    private mutating func send(_ items: [Item], day group: String, state: HistoryDayState, changes: Int64) async throws {
        let stored = try records.settled(in: group)
        let sent = HistoryDayState(stored).sent
        var now = state
        for item in items {
            let version = item.version ?? ""
            now.sent.versions[item.key] = version
            if earlier != nil { derived.insert(item.key) }
            if sent.versions[item.key] != version, earlier?.versions[item.key] != version { try await queue(item) }
        }
        for key in sent.versions.keys.sorted() where now.sent.versions[key] == nil { try await queue(tombstone(key)) }
        let encoded = now.encoded
        if changes > 0 || encoded != stored ?? [] { settling.settled[group] = SettledGroup(state: encoded, changes: changes) }
    }

    private func tombstone(_ key: String) -> Item {
        .tombstone(endpoint: key.hasPrefix("trip:") ? .motion : .location, key: key)
    }

    private mutating func queue(_ item: Item) async throws {
        queued.append(item)
        guard queued.count >= HistoryDelivery.chunk else { return }
        try await commit()
    }

    private mutating func commit() async throws {
        try await committer.commit(queued, anchor: .none, records: settling)
        count += queued.count
        queued = []
        settling = RecordChanges()
    }

    /// Settles another group (what the user was told of) with the last commit.
    mutating func settle(_ group: (name: String, state: SettledGroup)) { settling.settled[group.name] = group.state }

    /// Stores records with the last commit.
    mutating func store(_ records: [StateRecord]) { settling.records += records }

    /// Commits what is left, with every remaining day state, and waits for it; tombstones for
    /// the keys of the earlier layout's table no derived day gave.
    mutating func finish() async throws {
        if let earlier {
            for key in earlier.versions.keys.sorted() where !derived.contains(key) { try await queue(tombstone(key)) }
        }
        settling.settled[HistoryRecords.daysGroup] = SettledGroup(state: [], changes: indexChanges)
        try await commit()
        try await committer.finish()
    }
}
