import FoundationEssentials
import IngestCore
#if canImport(Glibc)
import Glibc
#endif

/// A counted play as a `media` item (docs/node-api.md: key, started_at, ended_at, played_s,
/// title, artist?, album?, length_s?, player).
enum PlayItem {
    /// The key comes from the player, the track and the start time, so a play sent again (when
    /// it ends, after a restart) updates the same item.
    static func make(_ play: Play, player: String, identity: String) -> Item {
        let track = play.track
        let identityParts = [player, track.trackID ?? "", track.title, track.artists.joined(separator: "\u{1F}"), track.album ?? "",
                             String(Int64(play.startedAt.rounded(.down)))]
        var fields: [String: JSONValue] = [
            "started_at": .string(Date(timeIntervalSince1970: play.startedAt.rounded(.down)).rfc3339),
            "ended_at": .string(Date(timeIntervalSince1970: max(play.startedAt, play.lastPlayingAt).rounded(.down)).rfc3339),
            "played_s": .int(Int64(play.played.rounded())),
            "title": .string(track.title),
            "player": .string(identity),
        ]
        if !track.artists.isEmpty { fields["artist"] = .string(track.artists.joined(separator: ", ")) }
        if let album = track.album { fields["album"] = .string(album) }
        if let length = track.length { fields["length_s"] = .int(Int64(length.rounded())) }
        return Item(endpoint: .media, key: "mpris:" + Digest.sha256Hex(identityParts.joined(separator: "\u{1E}"), length: 32), fields: fields)
    }
}

/// `Player=` and `IgnorePlayer=`: case-insensitive globs over a player's bus name (without
/// `org.mpris.MediaPlayer2.`, with and without its instance suffix) and its `Identity`.
struct PlayerFilter: Sendable, Equatable {
    var allow: [String] = []
    var deny: [String] = []

    func allows(busName: String, identity: String) -> Bool {
        let short = BusConnection.shortName(busName)
        let names = [short, String(short.prefix { $0 != "." }), identity].map { $0.lowercased() }
        func matches(_ pattern: String) -> Bool { names.contains { fnmatch(pattern.lowercased(), $0, 0) == 0 } }
        return (allow.isEmpty || allow.contains(where: matches)) && !deny.contains(where: matches)
    }
}
