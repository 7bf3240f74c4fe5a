import IngestCore
#if canImport(Glibc)
import Glibc
#endif

/// Turns what a scanned file gave into a `scan` item (docs/node-api.md): its text, never its image.
enum ScanItem {
    /// The contract's cap on `text`, in Unicode scalars (what a JSON reader counts as characters).
    static let maxTextScalars = 200_000

    /// - Parameters:
    ///   - key: The SHA-256 of the file's bytes, lowercase hex.
    ///   - languages: `Languages=` as configured, sent as `lang` when Tesseract read a page.
    static func make(_ reading: ScanRecognizer.Reading, key: String, capturedAt: String, languages: String,
                     fileName: String, size: Int) -> Item {
        let fields: [String: JSONValue] = [
            "captured_at": .string(capturedAt),
            "text": .string(normalized(reading.text)),
            "pages": .int(Int64(reading.pages)),
            // A document read wholly from its own text layer was not recognized in any language.
            "lang": .string(reading.recognized ? languages : ""),
            "confidence": .double(reading.confidence),
            // Sent, but not part of the version: a renamed copy is a duplicate, not an update.
            "file": .object(["name": .string(fileName), "size": .int(Int64(size))]),
        ]
        return Item(endpoint: .scan, key: key, fields: fields, unversioned: ["file"])
    }

    /// NFC, capped at `maxTextScalars`. FoundationEssentials has no `precomposedString…`; the
    /// standard library's NFC is the one swift-foundation itself uses.
    static func normalized(_ text: String) -> String {
        var nfc = String(decoding: text._nfcCodeUnits, as: UTF8.self)
        if nfc.unicodeScalars.count > maxTextScalars {
            nfc = String(String.UnicodeScalarView(nfc.unicodeScalars.prefix(maxTextScalars)))
        }
        return nfc
    }
}

/// `captured_at`: when the page was photographed or scanned, always with a UTC offset.
enum CaptureTime {
    /// The camera's DateTimeOriginal with its OffsetTimeOriginal; without one, the offset the
    /// system's zone had at that wall time (a scanner's clock is local time).
    static func exif(_ meta: PhotoMetadata) -> String? {
        guard let dto = meta.dateTimeOriginal else { return nil }
        let offset = meta.offset ?? CivilCalendar.offsetText(localOffset(wall: dto))
        return PhotoItem.TakenAt(wall: dto, subSecond: meta.subSecond, suffix: offset, floating: false).text
    }

    /// `YYYY-MM-DDTHH:MM:SS±HH:MM`: the instant as a clock `offsetSeconds` from UTC shows it.
    static func text(unixSeconds: Int64, offsetSeconds: Int) -> String {
        let local = Int(unixSeconds) + offsetSeconds
        let days = local >= 0 ? local / 86_400 : (local - 86_399) / 86_400
        let seconds = local - days * 86_400
        let date = CivilCalendar.date(days: days)
        let wall = LocalDateTime(year: date.year, month: date.month, day: date.day,
                                 hour: seconds / 3600, minute: seconds / 60 % 60, second: seconds % 60)
        return wall.description + CivilCalendar.offsetText(offsetSeconds)
    }

    /// The file's modification time, at the system zone's offset of that moment.
    static func modification(nanoseconds: Int64) -> String {
        let seconds = nanoseconds >= 0 ? nanoseconds / 1_000_000_000 : (nanoseconds - 999_999_999) / 1_000_000_000
        return text(unixSeconds: seconds, offsetSeconds: localOffset(at: seconds))
    }

    static func localOffset(at unixSeconds: Int64) -> Int {
        var t = time_t(unixSeconds), parts = tm()
        guard localtime_r(&t, &parts) != nil else { return 0 }
        return parts.tm_gmtoff
    }

    /// The system zone's offset at a wall time (`mktime` decides DST for an ambiguous hour).
    static func localOffset(wall: LocalDateTime) -> Int {
        var parts = tm()
        parts.tm_year = Int32(wall.year - 1900); parts.tm_mon = Int32(wall.month - 1); parts.tm_mday = Int32(wall.day)
        parts.tm_hour = Int32(wall.hour); parts.tm_min = Int32(wall.minute); parts.tm_sec = Int32(wall.second)
        parts.tm_isdst = -1
        guard mktime(&parts) != -1 else { return 0 }
        return parts.tm_gmtoff
    }
}
