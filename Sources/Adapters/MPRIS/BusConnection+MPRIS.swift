import FoundationEssentials

/// The MPRIS calls the adapter makes, on top of the generic bus.
extension BusConnection {
    static let playerPrefix = "org.mpris.MediaPlayer2."
    static let objectPath = "/org/mpris/MediaPlayer2"
    static let playerInterface = "org.mpris.MediaPlayer2.Player"

    /// Match rules for everything `follow` reacts to: players coming and going (instance
    /// suffixes included), their property changes, and seeks.
    static let mprisMatchRules = [
        "type='signal',sender='org.freedesktop.DBus',interface='org.freedesktop.DBus',member='NameOwnerChanged',arg0namespace='org.mpris.MediaPlayer2'",
        "type='signal',interface='\(properties)',member='PropertiesChanged',path='/org/mpris/MediaPlayer2',arg0='org.mpris.MediaPlayer2.Player'",
        "type='signal',interface='org.mpris.MediaPlayer2.Player',member='Seeked',path='/org/mpris/MediaPlayer2'",
    ]

    /// Bus names of the players on the bus now, `org.mpris.MediaPlayer2.` included.
    func playerNames() throws(BusError) -> [String] {
        guard case .array(let names)? = try call(BusConnection.daemon, "/org/freedesktop/DBus", BusConnection.daemon, "ListNames").first else { return [] }
        return names.compactMap(\.text).filter { $0.hasPrefix(BusConnection.playerPrefix) }.sorted()
    }

    /// The unique name (`:1.42`) that owns `name`; signals come from it.
    func owner(of name: String) throws(BusError) -> String? {
        try call(BusConnection.daemon, "/org/freedesktop/DBus", BusConnection.daemon, "GetNameOwner", [name]).first?.text
    }

    /// Identity, status, rate, metadata and position in two calls.
    func snapshot(of name: String) throws(BusError) -> PlayerSnapshot {
        let properties = try self.properties(name, BusConnection.objectPath, BusConnection.playerInterface)
        let identity = (try? property(name, BusConnection.objectPath, "org.mpris.MediaPlayer2", "Identity"))??.text
        return PlayerSnapshot(identity: identity.map { String($0.prefix(Track.maxTextLength)) } ?? BusConnection.shortName(name),
                              status: properties["PlaybackStatus"]?.text.flatMap(PlaybackStatus.init(rawValue:)) ?? .stopped,
                              rate: properties["Rate"]?.number ?? 1,
                              track: properties["Metadata"]?.dict.flatMap(Track.init(metadata:)),
                              position: properties["Position"]?.number.map { $0 / 1_000_000 })
    }

    /// `Position` in track seconds (it is never signalled, so it is read when play counting needs it).
    func position(of name: String) throws(BusError) -> Double? {
        try property(name, BusConnection.objectPath, BusConnection.playerInterface, "Position", timeout: 1)?.number.map { $0 / 1_000_000 }
    }

    /// `org.mpris.MediaPlayer2.firefox.instance_1_84` → `firefox.instance_1_84`.
    static func shortName(_ busName: String) -> String { String(busName.dropFirst(playerPrefix.count)) }
}
