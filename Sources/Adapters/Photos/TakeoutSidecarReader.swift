/// The place and time in a Google Photos Takeout JSON sidecar, whatever the media it describes.
///
/// The shape (immich-go `adapters/googlePhotos/json.go`, google-photos-takeout-helper
/// `json_extractor.dart`): `geoDataExif` (what the file's Exif said when uploaded) and `geoData`
/// (that, or the place set in Google Photos), each `{latitude, longitude, altitude, …}` with 0/0
/// meaning none; `photoTakenTime: {timestamp: "1600000000", formatted: …}`, UTC epoch seconds as a
/// string. Everything else (title, people, album `metadata.json` fields) is skipped unread.
enum TakeoutSidecarReader {
    /// Real sidecars are a few KiB; a bigger `.json` is not one.
    static let maxSize = 1 << 20

    /// The sidecar at `path` (relative to `folder` when given), read whole: it is all metadata.
    /// - Parameter statedSize: its size as a folder walk's `stat` gave it (see ``BoundedFile``).
    static func metadata(path: String, in folder: OpenFolder?, statedSize: Int) throws(PhotoReadError) -> PhotoMetadata {
        let file = try BoundedFile(path: path, in: folder, statedSize: statedSize)
        guard file.size <= maxSize else { throw PhotoReadError("Takeout sidecar of \(file.size) bytes exceeds the \(maxSize >> 20) MiB limit") }
        return try metadata(from: file.read(at: 0, count: file.size))
    }

    /// `file`'s metadata with what it lacks taken from its Takeout sidecar's: the file's own
    /// place and time win. The sidecar's altitude comes only with its place.
    static func filling(_ file: PhotoMetadata, from sidecar: PhotoMetadata) -> PhotoMetadata {
        var sidecar = sidecar
        if file.latitude != nil, file.longitude != nil { sidecar.altitudeM = nil }
        return file.fillingGaps(from: sidecar)
    }

    /// - Throws: `PhotoReadError` naming the line when the bytes are not a JSON object.
    static func metadata(from bytes: [UInt8]) throws(PhotoReadError) -> PhotoMetadata {
        guard bytes.count <= maxSize else { throw PhotoReadError("Takeout sidecar of \(bytes.count) bytes exceeds the \(maxSize >> 20) MiB limit") }
        do {
            return try bytes.withUnsafeBufferPointer { buffer throws(JSONScanner.Failure) in
                var scanner = JSONScanner(buffer)
                return try read(&scanner)
            }
        } catch {
            throw PhotoReadError("not a Takeout sidecar: \(error)")
        }
    }

    private static func read(_ s: inout JSONScanner) throws(JSONScanner.Failure) -> PhotoMetadata {
        guard try s.peek() == .object else { throw .syntax(line: s.line, "expected an object") }
        try s.enterObject()
        var exifPlace: Place?, place: Place?
        var taken: LocalDateTime?
        while let key = try s.nextKey() {
            if s.key(key, is: "geoDataExif") { exifPlace = try Place.read(&s) }
            else if s.key(key, is: "geoData") { place = try Place.read(&s) }
            else if s.key(key, is: "photoTakenTime") { taken = try utcTime(&s) }
            else { try s.skipValue() }
        }
        var meta = PhotoMetadata()
        if let chosen = exifPlace ?? place {
            meta.latitude = chosen.latitude
            meta.longitude = chosen.longitude
            meta.altitudeM = chosen.altitude
        }
        meta.takenUTC = taken
        return meta
    }

    /// A `geoData` object; nil for 0/0 (Takeout's "no place") or a position off the globe.
    private struct Place {
        var latitude: Double
        var longitude: Double
        /// Takeout writes 0.0 when it knows no altitude, so 0 counts as none.
        var altitude: Double?

        static func read(_ s: inout JSONScanner) throws(JSONScanner.Failure) -> Place? {
            guard try s.peek() == .object else { try s.skipValue(); return nil }
            try s.enterObject()
            var lat: Double?, lon: Double?, alt: Double?
            while let key = try s.nextKey() {
                if s.key(key, is: "latitude") { lat = try s.number() }
                else if s.key(key, is: "longitude") { lon = try s.number() }
                else if s.key(key, is: "altitude") { alt = try s.number() }
                else { try s.skipValue() }
            }
            guard let lat, let lon, lat != 0 || lon != 0, (-90...90).contains(lat), (-180...180).contains(lon) else { return nil }
            return Place(latitude: lat, longitude: lon, altitude: alt.flatMap { $0 != 0 && $0.isFinite ? $0 : nil })
        }
    }

    /// `{"timestamp": "1600000000", …}` as a UTC wall time; nil for 0 (unknown) or out of range.
    private static func utcTime(_ s: inout JSONScanner) throws(JSONScanner.Failure) -> LocalDateTime? {
        guard try s.peek() == .object else { try s.skipValue(); return nil }
        try s.enterObject()
        var seconds: Double?
        while let key = try s.nextKey() {
            if s.key(key, is: "timestamp") { seconds = try s.number() } else { try s.skipValue() }
        }
        // Up to 9999-12-31: what a LocalDateTime holds.
        guard let seconds, seconds.isFinite, seconds >= 1, seconds < 253_402_300_800 else { return nil }
        return LocalDateTime(year: 1970, month: 1, day: 1, hour: 0, minute: 0, second: 0).shifted(bySeconds: Int(seconds))
    }
}
