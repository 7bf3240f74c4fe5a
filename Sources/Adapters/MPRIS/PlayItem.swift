import FoundationEssentials
import IngestCore
#if canImport(Glibc)
import Glibc
#endif

/// A counted play as a `media` item (docs/node-api.md: key, started_at, ended_at, played_s,
/// title, artist?, album?, length_s?, player).
enum PlayItem {
    /// The key comes from the track and the merged play's key start (see `MergedPlay`), so a
    /// play sent again (when it ends, after a restart, by a second player showing it) updates
    /// the same item.
    static func make(_ play: MergedPlay) -> Item {
        let track = play.track
        var fields: [String: JSONValue] = [
            "started_at": .string(Date(timeIntervalSince1970: play.startedAt.rounded(.down)).rfc3339),
            "ended_at": .string(Date(timeIntervalSince1970: max(play.startedAt, play.endedAt).rounded(.down)).rfc3339),
            "played_s": .int(Int64(play.played.rounded())),
            "title": .string(track.title),
            "player": .string(play.player),
        ]
        if !track.artists.isEmpty { fields["artist"] = .string(track.artists.joined(separator: ", ")) }
        if let album = track.album { fields["album"] = .string(album) }
        if let length = track.length { fields["length_s"] = .int(Int64(length.rounded())) }
        return Item(endpoint: .media, key: play.key, fields: fields)
    }
}

/// Which players count. `Player=` and `IgnorePlayer=`: case-insensitive globs over a player's
/// bus name (without `org.mpris.MediaPlayer2.`, with and without its instance suffix) and its
/// `Identity`. `IgnorePlayers=`: case-insensitive globs over the whole bus name only, for
/// players that show other players' plays under those players' Identity (playerctld, KDE
/// Connect's phone players). A player counts when it matches an allow glob (or there are none)
/// and no ignore glob of either key. playerctld never counts: it only mirrors the active player.
struct PlayerFilter: Sendable, Equatable {
    var allow: [String] = []
    var deny: [String] = []
    var denyBusNames: [String] = []

    static let playerctld = BusConnection.playerPrefix + "playerctld"

    func allows(busName: String, identity: String) -> Bool {
        guard busName != PlayerFilter.playerctld else { return false }
        let short = BusConnection.shortName(busName)
        let names = [short, String(short.prefix { $0 != "." }), identity].map { $0.lowercased() }
        func matches(_ pattern: String, _ names: [String]) -> Bool { names.contains { fnmatch(pattern.lowercased(), $0, 0) == 0 } }
        return (allow.isEmpty || allow.contains { matches($0, names) }) && !deny.contains { matches($0, names) }
            && !denyBusNames.contains { matches($0, [busName.lowercased()]) }
    }
}
