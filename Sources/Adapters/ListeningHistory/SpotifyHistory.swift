import IngestCore

/// One row of a Spotify listening history, as read: when it ended, how long it played, and what.
struct ListenRow: Equatable, Sendable {
    /// Seconds since 1970, UTC: `ts` (to the second) or `endTime` (to the minute).
    var end: Double
    var playedMs: Double
    var title: String
    /// The album artist of a track; the show of an episode in the one-file account data, which
    /// does not tell episodes from tracks.
    var artist: String?
    /// The album, or an episode's show, or an audiobook's title.
    var album: String?
}

/// Spotify's two listening-history shapes, both a top-level array of one object per play, told
/// apart by their keys (never the file name, which Spotify changed more than once):
/// - "Extended streaming history" (`Streaming_History_Audio_*.json`, `Streaming_History_Video_*.json`,
///   before 2023 `endsong_*.json`): `ts` ("2021-11-15T13:41:44Z", the play's end), `ms_played`,
///   `master_metadata_track_name` / `_album_artist_name` / `_album_album_name` (null for
///   episodes and for plays Spotify lost the metadata of), `episode_name`, `episode_show_name`,
///   `audiobook_chapter_title`, `audiobook_title`, and fields never sent (IP address, platform…).
/// - Account data (`StreamingHistory0.json`, since 2023 `StreamingHistory_music_0.json` and
///   `StreamingHistory_podcast_0.json`): `endTime` ("2020-12-22 16:43", UTC), `msPlayed`,
///   `artistName` + `trackName`, or `podcastName` + `episodeName`.
///
/// Streamed through ``JSONScanner``: memory is two blocks however large the file. A row without a
/// time or a title is counted, not sent; a row that is not an object, or whose time does not
/// parse, is a bad row named by line; a file cut off or broken mid-way throws after the rows before.
struct SpotifyHistory: ~Copyable {
    enum Shape: String, Sendable { case extended = "extended streaming history", accountData = "account data" }

    enum Row: Equatable {
        case play(ListenRow)
        /// Nothing to say what was played (Spotify lost the track's metadata, a video without names).
        case untitled
        case bad(line: Int, String)
    }

    private var s: JSONScanner
    private(set) var shape: Shape?

    /// Starts on `stream`. A stream that does not begin with an array (a folder's PDF, a JSON
    /// object such as Userdata.json) is no history: ``isArray`` is false and there are no rows.
    /// Only a failed read throws.
    init(_ stream: any ByteStream) throws(FileReadError) {
        var scanner = try Self.scanner(stream)
        isArray = try Self.enterArray(&scanner)
        s = scanner
    }

    private static func scanner(_ stream: any ByteStream) throws(FileReadError) -> JSONScanner {
        do throws(JSONScanner.Failure) { return try JSONScanner(stream: stream, blockSize: 1 << 18) } catch { throw FileReadError("\(error)") }
    }

    private static func enterArray(_ s: inout JSONScanner) throws(FileReadError) -> Bool {
        do throws(JSONScanner.Failure) {
            guard try s.peek() == .array else { return false }
            try s.enterArray()
            return true
        } catch {
            if case .read(let reason) = error { throw FileReadError(reason) }
            return false
        }
    }

    /// Whether the stream began with an array: its rows are read with ``next()``.
    let isArray: Bool

    /// The next row, nil at the end of the array.
    mutating func next() throws(FileReadError) -> Row? {
        guard isArray else { return nil }
        do throws(JSONScanner.Failure) {
            guard try s.nextElement() else { return nil }
            let line = s.line
            guard try s.peek() == .object else { try s.skipValue(); return .bad(line: line, "not an object") }
            var fields = Fields()
            try s.enterObject()
            while let key = try s.nextKey() { try fields.take(key, from: &s) }
            guard let shape = fields.shape else { return .bad(line: line, "neither ts and ms_played nor endTime and msPlayed") }
            if self.shape == nil { self.shape = shape }
            return fields.row(line: line)
        } catch { throw FileReadError("\(error)") }
    }

    /// Whether the array is the first thing in a listening history: the first row decides.
    var isHistory: Bool { shape != nil }
}

/// The members of one row that are read; the rest are skipped unread.
private struct Fields {
    var ts: String?, endTime: String?, playedMs: Double?, hasPlayed = false
    var track: String?, artist: String?, album: String?
    var episode: String?, show: String?, chapter: String?, book: String?

    var shape: SpotifyHistory.Shape? {
        guard hasPlayed else { return nil }
        return ts != nil ? .extended : endTime != nil ? .accountData : nil
    }

    mutating func take(_ key: Range<Int>, from s: inout JSONScanner) throws(JSONScanner.Failure) {
        if s.key(key, is: "ts") { ts = try s.string() }
        else if s.key(key, is: "ms_played") || s.key(key, is: "msPlayed") { playedMs = try s.number(); hasPlayed = true }
        else if s.key(key, is: "master_metadata_track_name") || s.key(key, is: "trackName") { track = try s.string() }
        else if s.key(key, is: "master_metadata_album_artist_name") || s.key(key, is: "artistName") { artist = try s.string() }
        else if s.key(key, is: "master_metadata_album_album_name") { album = try s.string() }
        else if s.key(key, is: "episode_name") || s.key(key, is: "episodeName") { episode = try s.string() }
        else if s.key(key, is: "episode_show_name") || s.key(key, is: "podcastName") { show = try s.string() }
        else if s.key(key, is: "audiobook_chapter_title") { chapter = try s.string() }
        else if s.key(key, is: "audiobook_title") { book = try s.string() }
        else if s.key(key, is: "endTime") { endTime = try s.string() }
        else { try s.skipValue() }
    }

    func row(line: Int) -> SpotifyHistory.Row {
        let end: Double?
        if let ts { end = HistoryTime.parse(ts) } else { end = endTime.flatMap(ListenTime.minute) }
        guard let end else { return .bad(line: line, "time \"\((ts ?? endTime ?? "").prefix(40))\" is not a UTC time") }
        guard let playedMs, playedMs.isFinite, playedMs >= 0, playedMs < 86_400_000 else {
            return .bad(line: line, "ms played is not a number of milliseconds under a day")
        }
        func text(_ value: String?) -> String? { value.flatMap(ListenTime.trimmed) }
        if let title = text(track) { return .play(ListenRow(end: end, playedMs: playedMs, title: title, artist: text(artist), album: text(album))) }
        if let title = text(episode) { return .play(ListenRow(end: end, playedMs: playedMs, title: title, artist: nil, album: text(show))) }
        if let title = text(chapter) { return .play(ListenRow(end: end, playedMs: playedMs, title: title, artist: nil, album: text(book))) }
        return .untitled
    }
}

/// The account data's times and the texts of both shapes.
enum ListenTime {
    /// `"2020-12-22 16:43"` (UTC, to the minute) as seconds since 1970.
    static func minute(_ text: String) -> Double? {
        let b = Array(text.utf8)
        guard b.count == 16, b[4] == UInt8(ascii: "-"), b[7] == UInt8(ascii: "-"), b[10] == UInt8(ascii: " "), b[13] == UInt8(ascii: ":") else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var v = 0
            for i in range { guard b[i] >= 48, b[i] <= 57 else { return nil }; v = v * 10 + Int(b[i] - 48) }
            return v
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10), let hour = number(11..<13),
              let minute = number(14..<16), (1...12).contains(month), (1...CivilCalendar.daysIn(month: month, year: year)).contains(day),
              hour < 24, minute < 60 else { return nil }
        return Double(CivilCalendar.days(year: year, month: month, day: day) * 86_400 + hour * 3600 + minute * 60)
    }

    static let maxTextLength = 512

    /// Trimmed and capped; nil when empty.
    static func trimmed(_ raw: String) -> String? {
        // Nearly every name is already clean: no Character walk for those.
        if let first = raw.utf8.first, let last = raw.utf8.last, first > 0x20, last > 0x20, raw.utf8.count <= maxTextLength { return raw }
        let text = raw.drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed()
        guard !text.isEmpty else { return nil }
        return text.count > maxTextLength ? String(text.prefix(maxTextLength - 1)) + "…" : String(text)
    }
}
