import FoundationEssentials
import IngestCore

/// A live place adapter's state between fixes (gpsd, geoclue): the filter, the visit detector,
/// and the journal chunk being written. `scan` and `follow` both rebuild it from the anchor and
/// the journal.
///
/// The anchor's one entry, `state`, says where a restart replays the journal from (the last
/// settled fix) and up to which fix time items were already queued, so a replay re-derives the
/// detector's memory without queueing anything twice.
struct PlaceTracker {
    struct Settings {
        var detector = VisitDetector.Settings()
        var maxError = 100.0
        var maxSpeed = 300.0
        /// How long fixes stay in the journal (for `resync`).
        var keepFixes = 30 * 86_400.0
    }

    /// Fixes per journal entry: one entry per minute of fixes, rewritten as it grows.
    static let chunkSeconds = 60.0

    let settings: Settings
    private(set) var detector: VisitDetector
    private var filter: FixFilter
    private var processedUntil: Double
    private var chunk: JournalEntry?
    private var chunkDirty = false
    /// Chunks completed since the last commit (a fast replay fills several between commits).
    private var finishedChunks: [JournalEntry] = []
    private var pruneBefore: Double?
    /// The departure a timer `run` last sent for the open visit gone stale, so the next runs do
    /// not send it again while no fix comes.
    private var staleDeparture: Double?
    private(set) var rejected: [FixFilter.Rejection: Int] = [:]

    /// Rebuilds the tracker by replaying the journal from the anchor's resume point; returns it
    /// with the items that replay found due (none, unless a crash came between a fix and its commit).
    static func restore(from anchor: Anchor, journal: (Double) throws -> [JournalEntry], settings: Settings) async throws -> (PlaceTracker, [Item]) {
        let saved = anchor["state"].flatMap(SavedState.init)
        let since = saved?.resume ?? -Double.infinity
        let entries = try journal(saved.map { $0.resume - PlaceTracker.chunkSeconds } ?? 0)
        var tracker = PlaceTracker(settings: settings)
        tracker.processedUntil = saved?.processedUntil ?? -Double.infinity
        tracker.staleDeparture = saved?.staleDeparture
        tracker.chunk = entries.last
        var items: [Item] = []
        var last: Fix?
        // Chunk by chunk, so a resync over weeks of fixes holds one chunk unpacked at a time.
        for entry in entries {
            for fix in Fix.unpack(entry.data) where fix.time >= since {
                defer { last = fix }
                if last == nil, saved?.startsTrip == true {
                    tracker.detector = VisitDetector(settings: settings.detector, resumingTripFrom: fix)
                    continue
                }
                let events = tracker.detector.add(fix)
                if fix.time > tracker.processedUntil { items += events.map(PlaceItems.item) }
            }
        }
        if let last { tracker.filter = FixFilter(maxError: settings.maxError, maxSpeed: settings.maxSpeed, last: last) }
        return (tracker, items)
    }

    /// `restore` from the sink's own journal.
    static func restore(from anchor: Anchor, sink: some RecordSink, settings: Settings) async throws -> (PlaceTracker, [Item]) {
        try await restore(from: anchor, journal: { try JournalEntry.read(sink.records, since: $0) }, settings: settings)
    }

    /// A live adapter's timer `run`: replays what the journal holds past the last settled point,
    /// closes a visit that went stale by the wall clock, and commits what is due.
    static func settle(since anchor: Anchor, into sink: some RecordSink, settings: Settings) async throws {
        var (tracker, items) = try await restore(from: anchor, sink: sink, settings: settings)
        items += tracker.closeIfStale(now: Date().timeIntervalSince1970)
        try await tracker.commit(latestPerKey(items), into: sink)
    }

    private init(settings: Settings) {
        self.settings = settings
        detector = VisitDetector(settings: settings.detector)
        filter = FixFilter(maxError: settings.maxError, maxSpeed: settings.maxSpeed)
        processedUntil = -Double.infinity
    }

    /// One fix from the source: filtered, journaled, and run through the detector.
    mutating func add(_ fix: Fix, now: Double) -> [Item] {
        if let reason = filter.check(fix, now: now) { rejected[reason, default: 0] += 1; return [] }
        if var current = chunk, fix.time < current.time + PlaceTracker.chunkSeconds {
            fix.pack(into: &current.data)
            chunk = current
        } else {
            if chunkDirty, let done = chunk { finishedChunks.append(done) }
            var data: [UInt8] = []
            data.reserveCapacity(Fix.packedSize * 64)
            fix.pack(into: &data)
            chunk = JournalEntry(time: fix.time, data: data)
            pruneBefore = fix.time - settings.keepFixes
        }
        chunkDirty = true
        processedUntil = fix.time
        return detector.add(fix).map(PlaceItems.item)
    }

    /// `run`: closes a visit that went stale by the wall clock, once per departure. The detector
    /// keeps the visit open, so a fix back within `Radius` before `BridgeGap` carries it on.
    mutating func closeIfStale(now: Double) -> [Item] {
        let events = detector.closeIfStale(now: now)
        guard case .closed(let visit)? = events.first, visit.departure != staleDeparture else { return [] }
        staleDeparture = visit.departure
        return events.map(PlaceItems.item)
    }

    /// Commits `items` with what the tracker holds uncommitted: the saved state, every journal
    /// chunk not yet stored, and the pruning due. Nothing is forgotten until the commit is done,
    /// so one that fails can be made again, with whatever came since, and no fix is lost.
    mutating func commit(_ items: [Item], into sink: some RecordSink) async throws {
        var anchor = AnchorUpdate(), records = RecordChanges()
        if let resume = detector.resumePoint {
            anchor.updates["state"] = SavedState(resume: resume.time, startsTrip: resume.startsTrip, processedUntil: processedUntil,
                                                 staleDeparture: detector.isVisitOpen ? staleDeparture : nil).encoded
        }
        records.records = finishedChunks.map(\.record)
        if chunkDirty, let chunk { records.records.append(chunk.record) }
        if let pruneBefore { records.cutoffs = [JournalEntry.cutoff(before: pruneBefore)] }
        try await sink.commit(items, anchor: anchor, records: records)
        finishedChunks = []
        chunkDirty = false
        pruneBefore = nil
    }

    var hasUncommittedFixes: Bool { chunkDirty }

    /// Of items about to be queued together, the last per key: a replay that opens and closes a
    /// visit sends only the closed one, so a resync never sets the node back to the open state.
    static func latestPerKey(_ items: [Item]) -> [Item] {
        guard items.count > 1 else { return items }
        var last: [String: Int] = [:]
        for (i, item) in items.enumerated() { last[item.key] = i }
        return items.enumerated().filter { last[$0.element.key] == $0.offset }.map(\.element)
    }

    /// One line on what the filter dropped since the last call, or nil.
    mutating func takeRejectionSummary() -> String? {
        guard !rejected.isEmpty else { return nil }
        let total = rejected.values.reduce(0, +)
        let parts = FixFilter.Rejection.allCases.compactMap { r in rejected[r].map { "\($0) \(r.rawValue)" } }
        rejected = [:]
        return "dropped \(total) fixes: " + parts.joined(separator: ", ")
    }
}

/// The `state` anchor entry, as text: `v1 resume startsTrip processedUntil [staleDeparture]`.
struct SavedState {
    var resume: Double
    var startsTrip: Bool
    var processedUntil: Double
    var staleDeparture: Double?

    init(resume: Double, startsTrip: Bool, processedUntil: Double, staleDeparture: Double? = nil) {
        self.resume = resume; self.startsTrip = startsTrip; self.processedUntil = processedUntil; self.staleDeparture = staleDeparture
    }

    init?(_ data: Data) {
        let f = String(decoding: data, as: UTF8.self).split(separator: " ")
        guard f.count == 4 || f.count == 5, f[0] == "v1", let resume = Double(f[1]), let until = Double(f[3]) else { return nil }
        self.init(resume: resume, startsTrip: f[2] == "1", processedUntil: until, staleDeparture: f.count == 5 ? Double(f[4]) : nil)
    }

    var encoded: Data {
        Data(("v1 \(resume) \(startsTrip ? 1 : 0) \(processedUntil)" + (staleDeparture.map { " \($0)" } ?? "")).utf8)
    }
}
