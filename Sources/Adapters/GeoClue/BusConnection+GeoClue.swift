import FoundationEssentials

/// The GeoClue2 calls the geoclue adapter makes (geoclue's D-Bus API, org.freedesktop.GeoClue2.*).
extension BusConnection {
    static let geoclue = "org.freedesktop.GeoClue2"
    static let geoclueManager = "/org/freedesktop/GeoClue2/Manager"
    static let managerInterface = "org.freedesktop.GeoClue2.Manager"
    static let clientInterface = "org.freedesktop.GeoClue2.Client"
    static let locationInterface = "org.freedesktop.GeoClue2.Location"
    static let desktopID = "hearthloom-ingest"

    /// geoclue coming, going and restarting, and the locations it sends us.
    static let geoclueMatchRules = [
        "type='signal',sender='org.freedesktop.DBus',interface='org.freedesktop.DBus',member='NameOwnerChanged',arg0='org.freedesktop.GeoClue2'",
        "type='signal',interface='org.freedesktop.GeoClue2.Client',member='LocationUpdated'",
    ]

    /// Asks for our client object (`Manager.GetClient`, which also starts a D-Bus-activated
    /// geoclue). Its reply, the client's path, comes out of `nextMessage`: geoclue 2.6 holds it
    /// back until a location agent for the user has registered.
    func requestClient() throws(BusError) -> UInt64 {
        try send(BusConnection.geoclue, BusConnection.geoclueManager, BusConnection.managerInterface, "GetClient")
    }

    /// Sets who we are and what we want, then asks geoclue to start (its reply comes out of
    /// `nextMessage`: the agent may ask the user first).
    func startClient(_ path: String, _ request: GeoClueRequest) throws(BusError) -> UInt64 {
        let properties: [(String, BusArgument)] = [
            ("DesktopId", .string(BusConnection.desktopID)), ("RequestedAccuracyLevel", .uint32(request.accuracyLevel)),
            ("DistanceThreshold", .uint32(request.distanceThreshold)), ("TimeThreshold", .uint32(request.timeThreshold)),
        ]
        for (name, value) in properties {
            try setProperty(BusConnection.geoclue, path, BusConnection.clientInterface, name, to: value, timeout: 5)
        }
        return try send(BusConnection.geoclue, path, BusConnection.clientInterface, "Start")
    }

    /// Stops our client and has geoclue forget it (`Client.Stop`, `Manager.DeleteClient`), as
    /// doctor does after its look; errors are ignored: geoclue drops a client whose peer leaves.
    func releaseClient(_ path: String) {
        _ = try? call(BusConnection.geoclue, path, BusConnection.clientInterface, "Stop", arguments: [])
        _ = try? call(BusConnection.geoclue, BusConnection.geoclueManager, BusConnection.managerInterface, "DeleteClient",
                      arguments: [.objectPath(path)])
    }

    /// The fix a Location object holds, read in one call: geoclue frees a Location a few seconds
    /// after the next one replaces it. nil when it has no position.
    func location(at path: String) throws(BusError) -> Fix? {
        let p = try properties(BusConnection.geoclue, path, BusConnection.locationInterface)
        guard let latitude = p["Latitude"]?.number, let longitude = p["Longitude"]?.number,
              case .structure(let stamp)? = p["Timestamp"], stamp.count == 2, let seconds = stamp[0].number, let micros = stamp[1].number
        else { return nil }
        // geoclue says "unknown" with -DBL_MAX for altitude and -1 for speed.
        let altitude = p["Altitude"]?.number.flatMap { $0 > -1e300 ? Float($0) : nil }
        let speed = p["Speed"]?.number.flatMap { $0 >= 0 ? Float($0) : nil }
        return Fix(time: seconds + micros / 1_000_000, latitude: latitude, longitude: longitude, altitude: altitude,
                   error: p["Accuracy"]?.number.map { Float($0) }, speed: speed)
    }
}

/// What the adapter asks geoclue for: `RequestedAccuracyLevel`, `DistanceThreshold` (metres),
/// `TimeThreshold` (seconds).
struct GeoClueRequest: Sendable {
    var accuracyLevel: UInt32
    var distanceThreshold: UInt32
    var timeThreshold: UInt32

    /// geoclue's GClueAccuracyLevel values for `Accuracy=`.
    static let accuracyLevels: [String: UInt32] = ["exact": 8, "street": 6, "neighborhood": 5, "city": 4]
}
