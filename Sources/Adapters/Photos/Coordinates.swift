/// Turning the many ways cameras spell a coordinate into one signed decimal value.
///
/// Exif asks for three rationals (degrees, minutes, seconds) plus an N/S or E/W reference,
/// but real devices write a single decimal-degree rational, leave seconds as 0/0, use
/// signed rationals, omit the reference or write it in lowercase. The rules here accept
/// all of those while refusing values that cannot be a place on Earth.
enum Coordinates {
    /// Degrees from 1 to 3 components. A missing or zero-denominator degree component
    /// means no coordinate; missing minutes or seconds count as zero. A negative
    /// component makes the whole value negative (a signed decimal-degree writer).
    static func degrees(fromComponents components: [Double?]) -> Double? {
        guard let first = components.first, let degrees = first, degrees.isFinite else { return nil }
        let minutes = components.count > 1 ? components[1] ?? 0 : 0
        let seconds = components.count > 2 ? components[2] ?? 0 : 0
        guard minutes.isFinite, seconds.isFinite else { return nil }
        let magnitude = abs(degrees) + abs(minutes) / 60 + abs(seconds) / 3600
        return degrees < 0 || minutes < 0 || seconds < 0 ? -magnitude : magnitude
    }

    /// Applies a reference letter: `negativeReference` ("S" or "W") forces the value
    /// negative; any other or missing reference keeps the value's own sign.
    static func applying(reference: Character?, negativeReference: Character, to value: Double) -> Double {
        reference == negativeReference ? -abs(value) : value
    }

    /// The first meaningful character of a reference field ("n\0", " S"), uppercased.
    static func reference(_ text: String?) -> Character? {
        text?.trimmed.uppercased().first
    }

    /// The pair if it is a usable position: both present, finite, in range, and not
    /// exactly (0, 0), which is what receivers without a fix write.
    static func position(latitude: Double?, longitude: Double?) -> (latitude: Double, longitude: Double)? {
        guard let latitude, let longitude, latitude.isFinite, longitude.isFinite,
              abs(latitude) <= 90, abs(longitude) <= 180,
              !(latitude == 0 && longitude == 0) else { return nil }
        return (latitude, longitude)
    }
}
