import FoundationEssentials
import IngestCore

/// `Type=geoclue`: visits and trips from the locations GeoClue2, the system's location service,
/// reports on the system bus (Wi-Fi, a modem's GPS, NMEA from the network).
///
/// `watch` follows geoclue live (`follow`); every location becomes a fix that goes through the
/// same filter, journal and stay-point detector as gpsd's. A timer `run` (`scan`) does not talk
/// to geoclue: it replays the journal and closes a visit that went stale by the wall clock.
public struct GeoClueAdapter: LiveAdapter, RecordKeeping {
    public static let type = "geoclue"
    public static let recordScope = RecordScope.instance
    public static let summary = "live GeoClue2 locations clustered into visits (location) and the trips between them (motion)"
    enum Key {
        static let accuracy = ConfigKey("Accuracy", .choice(["exact", "street", "neighborhood", "city"]), default: "exact",
                                        "the accuracy asked of geoclue (RequestedAccuracyLevel)")
        static let distanceThreshold = ConfigKey("DistanceThreshold", .integer, default: "0",
                                                 "geoclue sends a new location only after a move this far (metres; 0: every one)")
        static let timeThreshold = ConfigKey("TimeThreshold", .duration, default: "0s",
                                             "geoclue sends a new location at most this often (0: every one)")
    }
    public static let configKeys: [any ConfigKeyProtocol] = [Key.accuracy, Key.distanceThreshold, Key.timeThreshold]
        + PlaceKeys.detectorKeys + [PlaceKeys.keepFixes]
    public static let sampleConfig = String(decoding: PackageResources.geoclue_conf, as: UTF8.self)

    let request: GeoClueRequest
    let settings: PlaceTracker.Settings

    public init(config: AdapterConfig) throws(ConfigError) {
        let s = config.section
        let distance = try s.value(Key.distanceThreshold, where: { (0...100_000).contains($0) }, else: { _ in "must be 0 to 100000" })
        let time = try s.value(Key.timeThreshold, where: { (0...86_400).contains($0) }, else: { _ in "must be at most a day" })
        request = GeoClueRequest(accuracyLevel: GeoClueRequest.accuracyLevels[s[Key.accuracy]] ?? 8,
                                 distanceThreshold: UInt32(distance), timeThreshold: UInt32(time.rounded()))
        settings = try PlaceTracker.Settings(section: s)
    }

    public func scan(since anchor: Anchor, keeping sink: some RecordSink) async throws {
        try await PlaceTracker.settle(since: anchor, into: sink, settings: settings)
    }

    /// `doctor`: geoclue lets hearthloom-ingest in (see ``GeoClueDoctor``).
    public func doctorChecks() async -> [DoctorCheck] {
        let request = request
        return [await WorkerThreads.run("geoclue.doctor") { GeoClueDoctor.check(request) }]
    }

    public func follow(from anchor: Anchor, into sink: some ItemSink) async throws {
        let sink = try Self.recordSink(sink)
        let reader = GeoClueReader(request: request)
        try await PlaceTracker.follow(reader.events, from: anchor, settings: settings, into: sink, stop: { reader.stop() })
    }
}
