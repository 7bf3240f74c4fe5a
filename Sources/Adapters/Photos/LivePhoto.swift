import IngestCore

/// Live Photos: an iPhone still (HEIC or JPEG) and a short movie of the same moment, which are
/// one item, the still's.
///
/// They are paired by the identifier both carry (the still's Apple MakerNote tag 0x0011, the
/// movie's `com.apple.quicktime.content.identifier`), as Immich pairs them. Where one of the two
/// has none, only a `.mov` of the same name in the same folder whose capture time is within 2 s
/// of the still's is its pair: pairing by name alone joins unrelated files that happen to share
/// a camera counter (Immich issue 14459). Pairs are looked for within a folder, where phones
/// and their exports keep them.
enum LivePhoto {
    /// The most a still and a same-named movie may be apart and still be one capture.
    static let maxNameMatchGapMs: Int64 = 2000

    /// What one file offers for pairing, kept in its anchor record so that a file not read again
    /// can still be paired with one that was.
    struct Facts: Equatable, Sendable {
        var isVideo: Bool
        var contentIdentifier: String?
        /// Capture time in ms since 1970: `utc` when the instant is known (an offset, GPS or mvhd
        /// time), else the wall time with its zone unknown, comparable only with another such.
        var capture: (utc: Bool, ms: Int64)?

        static func == (a: Facts, b: Facts) -> Bool {
            a.isVideo == b.isVideo && a.contentIdentifier == b.contentIdentifier
                && a.capture?.utc == b.capture?.utc && a.capture?.ms == b.capture?.ms
        }

        init(isVideo: Bool, contentIdentifier: String?, capture: (utc: Bool, ms: Int64)?) {
            self.isVideo = isVideo
            self.contentIdentifier = contentIdentifier
            self.capture = capture
        }

        init(_ m: PhotoMetadata) {
            isVideo = m.isVideo
            contentIdentifier = m.contentIdentifier.flatMap { $0.isEmpty ? nil : $0 }
            if let dto = m.dateTimeOriginal, let offset = m.offset.flatMap(LivePhoto.offsetSeconds) {
                capture = (true, LivePhoto.milliseconds(dto, subSecond: m.subSecond) - Int64(offset) * 1000)
            } else if let utc = m.isVideo ? m.createdUTC ?? m.gpsTimestampUTC : m.gpsTimestampUTC {
                capture = (true, LivePhoto.milliseconds(utc, subSecond: nil))
            } else if let dto = m.dateTimeOriginal {
                capture = (false, LivePhoto.milliseconds(dto, subSecond: m.subSecond))
            }
        }

        /// `s` or `v`, `u`/`f` and the ms (or `-`), a space, then the identifier (which may hold
        /// spaces), appended to `out` with the identifier escaped for an anchor's line (``AnchorText``):
        /// a folder's anchor writes one per file.
        func write(into out: inout [UInt8]) {
            out.append(UInt8(ascii: isVideo ? "v" : "s"))
            if let capture {
                out.append(UInt8(ascii: capture.utc ? "u" : "f"))
                out.append(contentsOf: String(capture.ms).utf8)
            } else {
                out.append(UInt8(ascii: "-"))
            }
            out.append(UInt8(ascii: " "))
            if let id = contentIdentifier { AnchorText.append(id, to: &out) }
        }

        init?(encoded text: String) {
            guard let kind = text.first, kind == "v" || kind == "s", let space = text.firstIndex(of: " ") else { return nil }
            isVideo = kind == "v"
            let time = text[text.index(after: text.startIndex)..<space]
            if let zone = time.first, zone == "u" || zone == "f", let ms = Int64(time.dropFirst()) { capture = (zone == "u", ms) }
            let id = text[text.index(after: space)...]
            contentIdentifier = id.isEmpty ? nil : String(id)
        }
    }

    /// Whether `video` (named `videoName`) is the movie of the still `still` (named `stillName`).
    static func pairs(still: Facts, named stillName: String, video: Facts, named videoName: String) -> Bool {
        guard !still.isVideo, video.isVideo else { return false }
        if let a = still.contentIdentifier, let b = video.contentIdentifier { return a == b }
        guard baseName(videoName).lowercased() != videoName.lowercased(), videoName.lowercased().hasSuffix(".mov"),
              baseName(stillName) == baseName(videoName),
              let s = still.capture, let v = video.capture, s.utc == v.utc else { return false }
        return abs(s.ms - v.ms) <= maxNameMatchGapMs
    }

    /// The movies of `files` (name → facts) that are the pair of a still that gave an item (in `stills`).
    static func pairedVideos(_ files: [String: Facts], stills: Set<String>) -> Set<String> {
        let stillFacts = stills.compactMap { name in files[name].map { (name, $0) } }
        var paired = Set<String>()
        for (name, facts) in files where facts.isVideo {
            if stillFacts.contains(where: { pairs(still: $0.1, named: $0.0, video: facts, named: name) }) { paired.insert(name) }
        }
        return paired
    }

    private static func baseName(_ name: String) -> Substring {
        name.lastIndex(of: ".").map { name[..<$0] } ?? Substring(name)
    }

    /// "+HH:MM" as seconds east of UTC; nil for "-00:00", which says the offset is unknown.
    static func offsetSeconds(_ text: String) -> Int? {
        let bytes = Array(text.utf8)
        guard bytes.count == 6, text != "-00:00", let hours = Int(text.dropFirst().prefix(2)), let minutes = Int(text.suffix(2)) else { return nil }
        return (hours * 3600 + minutes * 60) * (bytes[0] == UInt8(ascii: "-") ? -1 : 1)
    }

    private static func milliseconds(_ t: LocalDateTime, subSecond: String?) -> Int64 {
        let seconds = Int64(CivilCalendar.days(year: t.year, month: t.month, day: t.day)) * 86_400 + Int64(t.hour * 3600 + t.minute * 60 + t.second)
        let fraction = subSecond.map { Int64(DateTimeText.nanoseconds(fromDigits: $0) / 1_000_000) } ?? Int64(t.nanosecond / 1_000_000)
        return seconds * 1000 + fraction
    }
}
