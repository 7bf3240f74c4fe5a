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

/// The config keys every adapter that clusters fixes into visits takes, with gpsd's defaults.
extension PlaceTracker.Settings {
    enum Key {
        static let maxError = ConfigKey("MaxError", .number, default: "100", "drop fixes with a larger horizontal error (metres)")
        static let maxSpeed = ConfigKey("MaxSpeed", .number, default: "300", "drop fixes implying a faster move (metres per second)")
        static let radius = ConfigKey("Radius", .number, default: "100", "a stay keeps within this distance of where it began (metres)")
        static let minStay = ConfigKey("MinStay", .duration, default: "5min", "the shortest stay that is a visit")
        static let maxGap = ConfigKey("MaxGap", .duration, default: "15min", "a longer gap between fixes ends a stay")
        static let keepFixes = ConfigKey("KeepFixes", .duration, default: "30d", "how long fixes are kept for resync")
    }
    static let configKeys: [any ConfigKeyProtocol] = [Key.maxError, Key.maxSpeed, Key.radius, Key.minStay, Key.maxGap, Key.keepFixes]

    init(_ s: ConfigSection) throws(ConfigError) {
        func positive(_ key: ConfigKey<Double>) throws(ConfigError) -> Double {
            try s.value(key, where: { $0 > 0 }, else: { _ in "must be more than 0" })
        }
        self.init()
        maxError = try positive(Key.maxError)
        maxSpeed = try positive(Key.maxSpeed)
        detector.radius = try positive(Key.radius)
        detector.minStay = s[Key.minStay]
        detector.maxGap = s[Key.maxGap]
        keepFixes = s[Key.keepFixes]
    }
}

extension PlaceTracker {
    /// A timer `run`, which does not talk to the source: replays what the journal holds past the
    /// last settled point, sends what is due, and closes a visit gone stale by the wall clock.
    static func scan(from anchor: Anchor, settings: Settings, into sink: some ItemSink) async throws {
        var (tracker, items) = try await restore(from: anchor, journal: { try JournalEntry.read(sink.records, since: $0) }, settings: settings)
        items += tracker.closeIfStale(now: Date().timeIntervalSince1970)
        try await sink.commit(latestPerKey(items), anchor: tracker.takeChanges())
    }

    /// `watch`: each fix from `events` is filtered, journaled and run through the detector; the
    /// items it gives are committed with the fixes that made them. `stop` ends `events` when the
    /// task is cancelled; what is held is committed before returning.
    static func follow(_ events: AsyncStream<FixSourceEvent>, from anchor: Anchor, settings: Settings,
                       into sink: some ItemSink, stop: @escaping @Sendable () -> Void) async throws {
        var tracker: PlaceTracker, items: [Item]
        do {
            (tracker, items) = try await restore(from: anchor, journal: { try JournalEntry.read(sink.records, since: $0) }, settings: settings)
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
