import FoundationEssentials
import IngestCore

/// What a live source of fixes reports (gpsd's reader, geoclue's client), in order.
enum FixSourceEvent: Sendable {
    case fix(Fix)
    /// Worth a line in the log: following a source, following it again.
    case notice(String)
    /// Something the user may have to fix, said as a warning (once per outage, by the source).
    case problem(String)
    /// The source has sent nothing for a moment: the fixes held are stored now, not with the next one.
    case pause
}

extension PlaceTracker {
    /// `watch`: each fix from `events` is filtered, journaled and run through the detector; the
    /// items it gives are committed with the fixes that made them. `stop` ends `events` when the
    /// task is cancelled; what is held is committed before returning.
    static func follow(_ events: AsyncStream<FixSourceEvent>, from anchor: Anchor, settings: Settings,
                       into sink: some RecordSink, stop: @escaping @Sendable () -> Void) async throws {
        var tracker: PlaceTracker, items: [Item]
        do {
            (tracker, items) = try await restore(from: anchor, sink: sink, settings: settings)
            try await tracker.commit(latestPerKey(items), into: sink)
        } catch {
            stop()
            throw error
        }
        var pending = PendingFixes(items: [])
        let clock = ContinuousClock()
        var lastSummary = clock.now
        await withTaskCancellationHandler {
            for await event in events {
                switch event {
                case .fix(let fix): pending.items += tracker.add(fix, now: Date().timeIntervalSince1970)
                case .notice(let line): Log.info(line)
                case .problem(let line): await sink.warn(line)
                case .pause: break
                }
                let paused = { if case .pause = event { true } else { false } }()
                await pending.commitIfDue(&tracker, into: sink, paused: paused, now: clock.now)
                if clock.now - lastSummary >= .seconds(60), let summary = tracker.takeRejectionSummary() {
                    await sink.warn(summary)
                    lastSummary = clock.now
                }
            }
        } onCancel: {
            stop()
        }
        if let summary = tracker.takeRejectionSummary() { await sink.warn(summary) }
        try await pending.commitAll(&tracker, into: sink)
    }
}

/// The items and fixes a follower holds until a commit stores them. A commit that fails (a full
/// disk, a locked store) loses nothing: the items stay, the tracker keeps its changes, and the
/// commit is tried again a little later with whatever came meanwhile; one warning per outage.
struct PendingFixes {
    var items: [Item]
    private var lastCommit = ContinuousClock.now
    private var retryAt: ContinuousClock.Instant?
    /// How long a failed commit waits before the next try.
    static let retryDelay = Duration.seconds(5)

    init(items: [Item]) { self.items = items }

    /// Items go out with the fixes that made them at once; fixes alone once a second or when the
    /// source pauses, so a crash loses at most a second of them.
    mutating func commitIfDue(_ tracker: inout PlaceTracker, into sink: some RecordSink, paused: Bool,
                              now: ContinuousClock.Instant) async {
        let due = now - lastCommit >= .seconds(1) || paused
        guard !items.isEmpty || (tracker.hasUncommittedFixes && due) else { return }
        if let retryAt, now < retryAt { return }
        do {
            try await tracker.commit(PlaceTracker.latestPerKey(items), into: sink)
            items = []
            if retryAt != nil { Log.notice("fixes are stored again") }
            retryAt = nil
        } catch {
            if retryAt == nil { await sink.warn("could not store fixes: \(error); they are kept and stored again in \(Self.retryDelay)") }
            retryAt = now + Self.retryDelay
        }
        lastCommit = now
    }

    /// The last commit, when following ends: tried a few times before the error is thrown, so a
    /// store that is busy for a moment still gets what is held.
    mutating func commitAll(_ tracker: inout PlaceTracker, into sink: some RecordSink) async throws {
        for attempt in 1...Self.finalAttempts {
            do {
                try await tracker.commit(PlaceTracker.latestPerKey(items), into: sink)
                items = []
                return
            } catch where attempt < Self.finalAttempts {
                try? await Task.sleep(for: .milliseconds(200))   // returns at once once cancelled
            }
        }
    }
    static let finalAttempts = 5
}
