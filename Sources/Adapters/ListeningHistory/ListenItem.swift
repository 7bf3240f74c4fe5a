import FoundationEssentials
import IngestCore

/// A counted Spotify play as a `media` item (docs/node-api.md: key, started_at, ended_at,
/// played_s, title, artist?, album?, length_s?, player). Spotify's exports give no track length,
/// so `length_s` is never sent.
enum ListenItem {
    static let player = "Spotify"

    /// The key: the track (title, and artist or show), the minute the play ended and the
    /// milliseconds played, under this source. Both export shapes give those alike (the account
    /// data's `endTime` is the extended history's `ts` to the minute), so the same play in two
    /// exports, two files, a moved file or a resync is one key; the start is that end less the
    /// time played. Two different plays of one track cannot end in one minute having played the
    /// same milliseconds, unless they are the same play.
    ///
    /// The minute leads, zero-padded: an export lists plays in time order, so a store indexed by
    /// key (the node's, the embedded one) takes a million of them nearly in order instead of at
    /// random places of its index.
    static func key(_ row: ListenRow) -> String {
        let minute = max(0, Int64((row.end / 60).rounded(.down)))
        let parts = [row.title, row.artist ?? row.album ?? "", String(minute), String(Int64(row.playedMs.rounded()))]
        let digits = String(minute)
        return "spotify:" + String(repeating: "0", count: max(0, 9 - digits.count)) + digits + ":"
            + Digest.sha256Hex(parts.joined(separator: "\u{1E}"), length: 24)
    }

    static func make(_ row: ListenRow) -> Item {
        let ended = row.end.rounded(.down)
        let started = (row.end - row.playedMs / 1000).rounded(.down)
        // No version: a play never changes, and the same play read again from the other shape
        // (the account data's minute instead of the second) is a duplicate, not an update, so a
        // resync after both were read sends nothing new whichever came first. In key order.
        var fields = ItemFields(key: key(row), versioned: false)
        if let album = row.album { fields.add("album", album) }
        if let artist = row.artist { fields.add("artist", artist) }
        fields.add("ended_at", Date(timeIntervalSince1970: ended).rfc3339)
        fields.add("played_s", Int64((row.playedMs / 1000).rounded()))
        fields.add("player", player)
        fields.add("started_at", Date(timeIntervalSince1970: started).rfc3339)
        fields.add("title", row.title)
        return Item(endpoint: .media, fields: fields)
    }
}
