import FoundationEssentials

/// What a player says it plays, from its MPRIS `Metadata`, cut to sizes a node item can carry.
struct Track: Codable, Sendable, Equatable {
    var title: String
    var artists: [String]
    var album: String?
    /// Seconds; nil when the player does not know (streams, some web players).
    var length: Double?
    /// `mpris:trackid`, when it is a real one.
    var trackID: String?

    static let maxTextLength = 512
    static let maxArtists = 16
    /// Players that have nothing loaded say so with this path.
    static let noTrack = "/org/mpris/MediaPlayer2/TrackList/NoTrack"

    /// Reads `xesam:title`, `xesam:artist`, `xesam:album`, `mpris:length` and `mpris:trackid`,
    /// forgiving what players get wrong: a string where a list of artists belongs, a length as
    /// any number type, fields missing or of the wrong type (dropped). Without a title there is
    /// nothing to count: nil.
    init?(metadata: [String: BusValue]) {
        guard let title = Track.text(metadata["xesam:title"]) else { return nil }
        self.title = title
        switch metadata["xesam:artist"] {
        case .array(let values): artists = values.compactMap(Track.text)
        case .string: artists = Track.text(metadata["xesam:artist"]).map { [$0] } ?? []
        default: artists = []
        }
        artists = Array(artists.prefix(Track.maxArtists))
        album = Track.text(metadata["xesam:album"])
        let micros = metadata["mpris:length"]?.number ?? 0
        length = micros > 0 && micros < 1e13 ? micros / 1_000_000 : nil          // under ~4 months, else nonsense
        trackID = Track.text(metadata["mpris:trackid"]).flatMap { $0 == Track.noTrack ? nil : $0 }
    }

    init(title: String, artists: [String] = [], album: String? = nil, length: Double? = nil, trackID: String? = nil) {
        self.title = title; self.artists = artists; self.album = album; self.length = length; self.trackID = trackID
    }

    /// The same listen target: a later `Metadata` that only adds a length or art is not a new track.
    func isSame(as other: Track) -> Bool {
        trackID == other.trackID && title == other.title && artists == other.artists && album == other.album
    }

    /// The same track shown by another player: trackids are each player's own, so they are left out.
    func hasSameTags(as other: Track) -> Bool {
        title == other.title && artists == other.artists && album == other.album
    }

    /// A non-empty string field, trimmed and capped; anything else is nil.
    private static func text(_ value: BusValue?) -> String? {
        guard let raw = value?.text else { return nil }
        let trimmed = raw.drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed()
        guard !trimmed.isEmpty else { return nil }
        return trimmed.count > maxTextLength ? String(trimmed.prefix(maxTextLength - 1)) + "…" : String(trimmed)
    }
}
