import CGPS
import FoundationEssentials
import IngestCore

/// `Type=gpsd`: visits and trips from gpsd's fixes.
///
/// `watch` follows gpsd live (`follow`): each fix is filtered, written to the state store's
/// journal, and run through the stay-point detector; visits and trips are queued with the fixes
/// that made them, in one transaction. A timer `run` (`scan`) replays what the journal holds past
/// the last settled point and closes a visit that went stale by the wall clock.
public struct GPSDAdapter: LiveAdapter, RecordKeeping {
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

    /// `doctor`: libgps loads and gpsd answers at Host:Port with its VERSION banner.
    public func doctorChecks() async -> [DoctorCheck] {
        let (host, port) = (host, port)
        let address = "gpsd at \(host):\(port)"
        return await WorkerThreads.run("gpsd.doctor") { () -> [DoctorCheck] in
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
            let neverStopped = LoopControl()
            while reports < 8, connection.waitForData(timeout: 3, control: neverStopped) {
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

    public func scan(since anchor: Anchor, keeping sink: some RecordSink) async throws {
        try await PlaceTracker.settle(since: anchor, into: sink, settings: settings)
    }

    public func follow(from anchor: Anchor, into sink: some ItemSink) async throws {
        let sink = try Self.recordSink(sink)
        let reader = GPSDReader(host: host, port: port, silence: silence)
        try await PlaceTracker.follow(reader.events, from: anchor, settings: settings, into: sink, stop: { reader.stop() })
    }
}
