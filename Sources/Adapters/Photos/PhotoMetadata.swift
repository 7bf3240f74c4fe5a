/// Where and when a photo was taken, and by which camera, as far as its metadata says.
///
/// Every field is optional because real files carry any subset of these tags. A field is
/// nil both when the tag is absent and when its value is unusable (a zero denominator, an
/// out-of-range coordinate, a blank date), so callers never have to re-validate.
public struct PhotoMetadata: Sendable, Equatable {
    /// Signed decimal degrees, WGS84, with the N/S reference already applied.
    /// Always set together with `longitude`: a lone coordinate is not a position.
    public var latitude: Double?
    /// Signed decimal degrees, WGS84, with the E/W reference already applied.
    public var longitude: Double?
    /// Metres; negative when the altitude reference says "below sea level".
    public var altitudeM: Double?
    /// GPSHPositioningError in metres.
    public var horizontalErrorM: Double?
    /// Camera wall-clock time of capture, whole seconds (the fraction is in `subSecond`).
    /// Taken from DateTimeOriginal, else CreateDate/DateTimeDigitized, else DateTime.
    public var dateTimeOriginal: LocalDateTime?
    /// Sub-second digits exactly as written (SubSecTimeOriginal, or the XMP fraction), e.g. "123".
    public var subSecond: String?
    /// UTC offset of `dateTimeOriginal`, normalised to "+HH:MM".
    public var offset: String?
    /// GPS fix time in UTC, from GPSDateStamp + GPSTimeStamp (or XMP GPSTimeStamp).
    public var gpsTimestampUTC: LocalDateTime?
    /// The capture instant in UTC from a source that gives no wall time: a Takeout sidecar's
    /// `photoTakenTime`. Stands in for the GPS time where the file has none.
    public var takenUTC: LocalDateTime?
    public var make: String?
    public var model: String?
    public var imageUniqueID: String?
    /// BodySerialNumber (XMP: exifEX:BodySerialNumber or aux:SerialNumber).
    public var cameraSerial: String?
    /// EXIF Orientation (1–8): how the stored pixels must be turned to stand upright.
    public var orientation: Int?
    /// True for a movie (MP4, MOV, M4V, 3GP) rather than a still photo.
    public var isVideo = false
    /// The Live Photo identifier shared by a still (Apple MakerNote 0x0011) and its short movie
    /// (`com.apple.quicktime.content.identifier`).
    public var contentIdentifier: String?
    /// A movie's `mvhd` creation time, UTC by the spec (used when no keyed date with an offset is there).
    public var createdUTC: LocalDateTime?
    /// A movie's length in milliseconds, from `mvhd`: part of a movie's identity.
    public var durationMs: Int?

    public init(
        latitude: Double? = nil,
        longitude: Double? = nil,
        altitudeM: Double? = nil,
        horizontalErrorM: Double? = nil,
        dateTimeOriginal: LocalDateTime? = nil,
        subSecond: String? = nil,
        offset: String? = nil,
        gpsTimestampUTC: LocalDateTime? = nil,
        make: String? = nil,
        model: String? = nil,
        imageUniqueID: String? = nil,
        cameraSerial: String? = nil,
        orientation: Int? = nil
    ) {
        self.latitude = latitude
        self.longitude = longitude
        self.altitudeM = altitudeM
        self.horizontalErrorM = horizontalErrorM
        self.dateTimeOriginal = dateTimeOriginal
        self.subSecond = subSecond
        self.offset = offset
        self.gpsTimestampUTC = gpsTimestampUTC
        self.make = make
        self.model = model
        self.imageUniqueID = imageUniqueID
        self.cameraSerial = cameraSerial
        self.orientation = orientation
    }

    /// This value with every missing field taken from `other`.
    ///
    /// Used to let embedded XMP complete what Exif left out, and a sidecar complete a file.
    func fillingGaps(from other: PhotoMetadata) -> PhotoMetadata {
        var merged = self
        if merged.latitude == nil || merged.longitude == nil {
            merged.latitude = other.latitude
            merged.longitude = other.longitude
        }
        merged.altitudeM = altitudeM ?? other.altitudeM
        merged.horizontalErrorM = horizontalErrorM ?? other.horizontalErrorM
        merged.dateTimeOriginal = dateTimeOriginal ?? other.dateTimeOriginal
        merged.subSecond = subSecond ?? other.subSecond
        merged.offset = offset ?? other.offset
        merged.gpsTimestampUTC = gpsTimestampUTC ?? other.gpsTimestampUTC
        merged.takenUTC = takenUTC ?? other.takenUTC
        merged.make = make ?? other.make
        merged.model = model ?? other.model
        merged.imageUniqueID = imageUniqueID ?? other.imageUniqueID
        merged.cameraSerial = cameraSerial ?? other.cameraSerial
        merged.orientation = orientation ?? other.orientation
        merged.contentIdentifier = contentIdentifier ?? other.contentIdentifier
        merged.createdUTC = createdUTC ?? other.createdUTC
        merged.durationMs = durationMs ?? other.durationMs
        return merged
    }
}

/// A calendar date and time of day with no time zone attached.
///
/// Exif dates are camera wall-clock readings whose zone is only sometimes known
/// (see `PhotoMetadata.offset`), so they are kept as plain fields rather than an instant.
public struct LocalDateTime: Sendable, Equatable, Hashable, CustomStringConvertible {
    public var year: Int
    public var month: Int
    public var day: Int
    public var hour: Int
    public var minute: Int
    public var second: Int
    public var nanosecond: Int

    public init(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int, nanosecond: Int = 0) {
        self.year = year
        self.month = month
        self.day = day
        self.hour = hour
        self.minute = minute
        self.second = second
        self.nanosecond = nanosecond
    }

    /// ISO 8601 without zone, e.g. "2021-03-04T05:06:07" (fraction only when non-zero).
    public var description: String {
        var text: [UInt8] = []
        text.reserveCapacity(30)
        write(into: &text)
        return String(decoding: text, as: UTF8.self)
    }

    /// Appends `description`'s bytes: written digit by digit, with no string in between, because
    /// every photo's key and capture time use it and interpolation with padding makes strings.
    func write(into text: inout [UInt8]) {
        func digits(_ value: Int, _ width: Int) {
            var v = max(0, value)
            let at = text.count
            for _ in 0..<width { text.append(0x30) }
            for i in stride(from: at + width - 1, through: at, by: -1) { text[i] = UInt8(0x30 + v % 10); v /= 10 }
            if v > 0 { text.removeLast(width); text.append(contentsOf: String(value).utf8) }
        }
        digits(year, 4); text.append(0x2D); digits(month, 2); text.append(0x2D); digits(day, 2); text.append(0x54)
        digits(hour, 2); text.append(0x3A); digits(minute, 2); text.append(0x3A); digits(second, 2)
        if nanosecond != 0 {
            text.append(0x2E)
            digits(nanosecond, 9)
            while text.last == 0x30 { text.removeLast() }
        }
    }
}

/// The container format, decided from the file's first bytes (`.xmp` sidecars by extension).
public enum PhotoFormat: String, Sendable {
    case jpeg, heif, png, tiff, webp, xmp, movie
}
