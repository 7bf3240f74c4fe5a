import CGPS
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
        static let maxError = ConfigKey("MaxError", .number, default: "100", "drop fixes with a larger horizontal error (metres)")
        static let maxSpeed = ConfigKey("MaxSpeed", .number, default: "300", "drop fixes implying a faster move (metres per second)")
        static let radius = ConfigKey("Radius", .number, default: "100", "a stay keeps within this distance of where it began (metres)")
        static let minStay = ConfigKey("MinStay", .duration, default: "5min", "the shortest stay that is a visit")
        static let maxGap = ConfigKey("MaxGap", .duration, default: "15min", "a longer gap between fixes ends a stay")
        static let keepFixes = ConfigKey("KeepFixes", .duration, default: "30d", "how long fixes are kept for resync")
    }
    public static let configKeys: [any ConfigKeyProtocol] = [
        Key.host, Key.port, Key.noDataTimeout, Key.maxError, Key.maxSpeed, Key.radius, Key.minStay, Key.maxGap, Key.keepFixes,
    ]
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
        func positive(_ key: ConfigKey<Double>) throws(ConfigError) -> Double {
            try s.value(key, where: { $0 > 0 }, else: { _ in "must be more than 0" })
        }
        var settings = PlaceTracker.Settings()
        settings.maxError = try positive(Key.maxError)
        settings.maxSpeed = try positive(Key.maxSpeed)
        settings.detector.radius = try positive(Key.radius)
        settings.detector.minStay = s[Key.minStay]
        settings.detector.maxGap = s[Key.maxGap]
        settings.keepFixes = s[Key.keepFixes]
        self.settings = settings
    }

    /// `doctor`: libgps loads and gpsd answers at Host:Port with its VERSION banner.
    public func doctorChecks() async -> [DoctorCheck] {
        let (host, port) = (host, port)
        let address = "gpsd at \(host):\(port)"
        return await offThePool { () -> [DoctorCheck] in
            guard cgps_available() != 0 else {
                return [.fail("libgps", "libgps.so.28 cannot be loaded", fix: "sudo apt install libgps28")]
            }
            let library = DoctorCheck.ok("libgps", "loads")
            let connection: GPSDConnection
            do throws(GPSDConnection.Failure) { connection = try GPSDConnection(host: host, port: port) } catch {
                return [library, .fail(address, error.description, fix: "start gpsd (`sudo systemctl start gpsd`), or correct Host= and Port=")]
            }
            // VERSION is the first thing gpsd sends; a few reports are enough to see it.
            var reports = 0
            while reports < 8, connection.waitForData(timeout: 3) {
                reports += 1
                switch try? connection.read() {
                case .version(let major, let minor)?: return [library, .ok(address, "answers (protocol \(major).\(minor))")]
                case nil: return [library, .fail(address, "closed the connection", fix: "check gpsd's log (`journalctl -u gpsd`)")]
                default: continue
                }
            }
            return [library, .fail(address, "accepted the connection but sent no VERSION within 3 s", fix: "check that this port is gpsd's (`gpspipe -w`)")]
        }
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
