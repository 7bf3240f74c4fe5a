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
    enum Key {
        static let host = ConfigKey("Host", .string, default: "localhost", "where gpsd listens")
        static let port = ConfigKey("Port", .integer, default: "2947", "gpsd's port")
        static let noDataTimeout = ConfigKey("NoDataTimeout", .duration, default: "30s", "reconnect when gpsd sends nothing for this long")
    }
    public static let configKeys: [any ConfigKeyProtocol] = [
        Key.host, Key.port, Key.noDataTimeout,
    ] + PlaceKeys.detectorKeys + [PlaceKeys.keepFixes]
    public static let sampleConfig = String(decoding: PackageResources.gpsd_conf, as: UTF8.self)

    let host: String
    let port: Int
    let silence: Double
    let settings: PlaceTracker.Settings

    public init(config: AdapterConfig) throws(ConfigError) {
        let s = config.section
        host = s[Key.host]
        port = try s.value(Key.port, where: { (1...65535).contains($0) }, else: { _ in "must be 1 to 65535" })
        silence = s[Key.noDataTimeout]
        settings = try PlaceTracker.Settings(section: s)
    }

    public func scan(since anchor: Anchor, into sink: some ItemSink) async throws {
        try await PlaceTracker.settle(since: anchor, into: sink, settings: settings)
    }

    public func follow(from anchor: Anchor, into sink: some ItemSink) async throws {
        var (tracker, items) = try await PlaceTracker.restore(from: anchor, sink: sink, settings: settings)
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
