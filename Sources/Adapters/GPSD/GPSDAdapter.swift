import FoundationEssentials
import IngestCore

/// `Type=gpsd`: visits and trips from gpsd's fixes.
///
/// `watch` follows gpsd live (`follow`): each fix is filtered, written to the state store's
/// journal, and run through the stay-point detector; visits and trips are queued with the fixes
/// that made them, in one transaction. A timer `run` (`scan`) replays what the journal holds past
/// the last settled point and closes a visit that went stale by the wall clock.
public struct GPSDAdapter: LiveAdapter {
    public static let type = "gpsd"
    public static let recordScope = RecordScope.instance
    public static let summary = "live gpsd fixes clustered into visits (location) and the trips between them (motion)"
    public static let configKeys: [ConfigKey] = [
        ConfigKey("Host", .string, default: "localhost", "where gpsd listens"),
        ConfigKey("Port", .integer, default: "2947", "gpsd's port"),
        ConfigKey("NoDataTimeout", .duration, default: "30s", "reconnect when gpsd sends nothing for this long"),
        ConfigKey("MaxError", .number, default: "100", "drop fixes with a larger horizontal error (metres)"),
        ConfigKey("MaxSpeed", .number, default: "300", "drop fixes implying a faster move (metres per second)"),
        ConfigKey("Radius", .number, default: "100", "a stay keeps within this distance of where it began (metres)"),
        ConfigKey("MinStay", .duration, default: "5min", "the shortest stay that is a visit"),
        ConfigKey("MaxGap", .duration, default: "15min", "a longer gap between fixes ends a stay"),
        ConfigKey("KeepFixes", .duration, default: "30d", "how long fixes are kept for resync"),
    ]
    public static let sampleConfig = String(decoding: PackageResources.gpsd_conf, as: UTF8.self)

    let host: String
    let port: Int
    let silence: Double
    let settings: PlaceTracker.Settings

    public init(config: AdapterConfig) throws(ConfigError) {
        let s = config.section
        host = s.string("Host") ?? "localhost"
        port = Int(s.number("Port", default: 2947))
        silence = s.duration("NoDataTimeout", default: 30)
        var settings = PlaceTracker.Settings()
        settings.maxError = s.number("MaxError", default: 100)
        settings.maxSpeed = s.number("MaxSpeed", default: 300)
        settings.detector.radius = s.number("Radius", default: 100)
        settings.detector.minStay = s.duration("MinStay", default: 300)
        settings.detector.maxGap = s.duration("MaxGap", default: 900)
        settings.keepFixes = s.duration("KeepFixes", default: 30 * 86_400)
        guard (1...65535).contains(port) else { throw s.error("Port", "must be 1 to 65535") }
        for key in ["MaxError", "MaxSpeed", "Radius"] where s.number(key, default: 1) <= 0 { throw s.error(key, "must be more than 0") }
        self.settings = settings
    }

    public func scan(since anchor: Anchor, into sink: some ItemSink) async throws {
        var (tracker, items) = try await PlaceTracker.restore(from: anchor, journal: { try JournalEntry.read(sink.records, since: $0) }, settings: settings)
        items += tracker.closeIfStale(now: Date().timeIntervalSince1970)
        try await sink.commit(PlaceTracker.latestPerKey(items), anchor: tracker.takeChanges())
    }

    public func follow(from anchor: Anchor, into sink: some ItemSink) async throws {
        var (tracker, items) = try await PlaceTracker.restore(from: anchor, journal: { try JournalEntry.read(sink.records, since: $0) }, settings: settings)
        try await sink.commit(PlaceTracker.latestPerKey(items), anchor: tracker.takeChanges())
        items = []
        let reader = GPSDReader(host: host, port: port, silence: silence)
        let clock = ContinuousClock()
        var lastCommit = clock.now, lastSummary = clock.now
        await withTaskCancellationHandler {
            for await event in reader.events {
                switch event {
                case .fix(let fix):
                    items += tracker.add(fix, now: Date().timeIntervalSince1970)
                case .connected(let address):
                    Log.info("gpsd: following \(address)")
                case .lost(let problem):
                    await sink.warn(problem)
                case .unknownProtocol(let major, let minor):
                    await sink.warn("gpsd speaks protocol \(major).\(minor); this agent reads 3.x, so fixes may be missing")
                }
                // Items go out with the fixes that made them at once; fixes alone once a second,
                // so a crash loses at most a second of them.
                if !items.isEmpty || (tracker.hasUncommittedFixes && clock.now - lastCommit >= .seconds(1)) {
                    do { try await sink.commit(PlaceTracker.latestPerKey(items), anchor: tracker.takeChanges()) } catch { await sink.warn("could not store fixes: \(error)") }
                    items = []
                    lastCommit = clock.now
                }
                if clock.now - lastSummary >= .seconds(60), let summary = tracker.takeRejectionSummary() {
                    await sink.warn(summary)
                    lastSummary = clock.now
                }
            }
        } onCancel: {
            reader.stop()
        }
        // Stopped: what is held goes to the state store before returning.
        if let summary = tracker.takeRejectionSummary() { await sink.warn(summary) }
        try await sink.commit(PlaceTracker.latestPerKey(items), anchor: tracker.takeChanges())
    }
}
