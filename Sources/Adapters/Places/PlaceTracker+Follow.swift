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
                       into sink: some ItemSink, stop: @escaping @Sendable () -> Void) async throws {
        var tracker: PlaceTracker, items: [Item]
        do {
            (tracker, items) = try await restore(from: anchor, sink: sink, settings: settings)
            try await sink.commit(latestPerKey(items), anchor: tracker.takeChanges())
        } catch {
            stop()
            throw error
        }
        items = []
        let clock = ContinuousClock()
        var lastCommit = clock.now, lastSummary = clock.now
        await withTaskCancellationHandler {
            for await event in events {
                switch event {
                case .fix(let fix): items += tracker.add(fix, now: Date().timeIntervalSince1970)
                case .notice(let line): Log.info(line)
                case .problem(let line): await sink.warn(line)
                case .pause: break
                }
                // Items go out with the fixes that made them at once; fixes alone once a second or
                // when the source pauses, so a crash loses at most a second of them.
                let due = clock.now - lastCommit >= .seconds(1) || { if case .pause = event { true } else { false } }()
                if !items.isEmpty || (tracker.hasUncommittedFixes && due) {
                    do { try await sink.commit(latestPerKey(items), anchor: tracker.takeChanges()) } catch { await sink.warn("could not store fixes: \(error)") }
                    items = []
                    lastCommit = clock.now
                }
                if clock.now - lastSummary >= .seconds(60), let summary = tracker.takeRejectionSummary() {
                    await sink.warn(summary)
                    lastSummary = clock.now
                }
            }
        } onCancel: {
            stop()
        }
        if let summary = tracker.takeRejectionSummary() { await sink.warn(summary) }
        try await sink.commit(latestPerKey(items), anchor: tracker.takeChanges())
    }
}
