/// The UTC offset a photo's wall time had, told by comparing it with a UTC time of the same moment
/// (the GPS fix time, or a Takeout sidecar's `photoTakenTime`) when the camera recorded none.
///
/// As exiftool-vendored infers it (`Timezones.ts`, `ExifDateTime.ts`): the difference must be a
/// whole number of quarter hours, give or take 2 minutes (a GPS fix a little older than the
/// shutter, a camera clock a little off), within ±14 h (Pacific/Kiritimati is +14:00).
enum CaptureOffset {
    static let quarterHour = 15 * 60
    static let tolerance = 2 * 60
    static let maxOffset = 14 * 3600

    /// Seconds east of UTC, a multiple of 15 minutes; nil when the two times do not fit that.
    static func inferred(local: LocalDateTime, utc: LocalDateTime) -> Int? {
        let delta = seconds(local) - seconds(utc)
        let quarters = (delta + (delta >= 0 ? quarterHour / 2 : -quarterHour / 2)) / quarterHour
        let offset = quarters * quarterHour
        guard abs(offset) <= maxOffset, abs(delta - offset) <= tolerance else { return nil }
        return offset
    }

    /// Whole seconds since 1970 of a wall time read as UTC (the fractions are within the tolerance).
    private static func seconds(_ t: LocalDateTime) -> Int {
        CivilCalendar.days(year: t.year, month: t.month, day: t.day) * 86_400 + t.hour * 3600 + t.minute * 60 + t.second
    }
}
