import Testing
@testable import Adapters

/// `taken_at`'s offset when the camera recorded none: inferred from the GPS (or Takeout) UTC time.
@Suite struct CaptureOffsetTests {
    static func at(_ text: String) -> LocalDateTime { DateTimeText.parse(text)!.dateTime }

    struct Case: CustomTestStringConvertible, Sendable {
        var local: String, utc: String, offset: String?
        var testDescription: String { "\(local) vs \(utc) → \(offset ?? "none")" }
    }

    static let cases: [Case] = [
        Case(local: "2021-06-01 12:00:00", utc: "2021-06-01 10:00:00", offset: "+02:00"),
        Case(local: "2021-06-01 12:00:00", utc: "2021-06-01 10:01:59", offset: "+02:00"),          // a fix 2 min stale
        Case(local: "2021-06-01 12:00:00", utc: "2021-06-01 09:58:01", offset: "+02:00"),
        Case(local: "2021-06-01 12:00:00", utc: "2021-06-01 10:02:01", offset: nil),               // over 2 min off
        Case(local: "2021-06-01 12:00:00", utc: "2021-06-01 10:07:30", offset: nil),               // half-way between quarters
        Case(local: "2021-06-01 12:00:00", utc: "2021-06-01 12:00:00", offset: "+00:00"),
        Case(local: "2021-06-01 08:30:00", utc: "2021-06-01 13:00:00", offset: "-04:30"),
        Case(local: "2021-06-01 17:45:00", utc: "2021-06-01 12:00:00", offset: "+05:45"),          // Nepal
        Case(local: "2021-06-02 00:30:00", utc: "2021-06-01 23:45:00", offset: "+00:45"),          // across midnight
        Case(local: "2021-12-31 23:00:00", utc: "2022-01-01 09:00:00", offset: "-10:00"),          // across the year
        Case(local: "2021-06-02 02:00:00", utc: "2021-06-01 12:00:00", offset: "+14:00"),          // Kiritimati
        Case(local: "2021-06-01 00:00:00", utc: "2021-06-01 12:00:00", offset: "-12:00"),
        Case(local: "2021-06-02 02:15:00", utc: "2021-06-01 12:00:00", offset: nil),               // beyond ±14 h
        Case(local: "2021-06-03 12:00:00", utc: "2021-06-01 12:00:00", offset: nil),               // a wrong camera clock
    ]

    @Test(arguments: cases) func infers(_ c: Case) {
        let offset = CaptureOffset.inferred(local: Self.at(c.local), utc: Self.at(c.utc))
        #expect(offset.map(CivilCalendar.offsetText) == c.offset)
    }

    @Test func takenAtPrefersTheRecordedOffset_thenTheInferredOne_thenUTC_thenFloating() {
        let dto = Self.at("2021-06-01 12:00:00")
        var m = PhotoMetadata(latitude: 47.3769, longitude: 8.5417, dateTimeOriginal: dto, subSecond: "25", offset: "+01:00",
                              gpsTimestampUTC: Self.at("2021-06-01 10:00:30"))
        #expect(PhotoItem.takenAt(m).map { ($0.text, $0.floating) }! == ("2021-06-01T12:00:00.25+01:00", false))
        m.offset = nil
        #expect(PhotoItem.takenAt(m).map { ($0.text, $0.floating) }! == ("2021-06-01T12:00:00.25+02:00", false))
        m.gpsTimestampUTC = Self.at("2021-06-01 10:07:00")
        #expect(PhotoItem.takenAt(m).map { ($0.text, $0.floating) }! == ("2021-06-01T10:07:00Z", false))
        m.gpsTimestampUTC = nil
        #expect(PhotoItem.takenAt(m).map { ($0.text, $0.floating) }! == ("2021-06-01T12:00:00.25", true))
    }

    /// The key and version the release before offsets were inferred gave this photo (its JPEG as
    /// fixtures/photos/make-takeout.py's `jpeg(dto="2021:06:01 12:00:00", gps=(47.3769, 8.5417),
    /// gps_time=("2021:06:01", 10, 0, 30))` writes it, read by that release): the same key now,
    /// with a time that gained its offset, so a new version the node takes as an update.
    @Test func aPhotoAlreadySentKeepsItsKey_whenItsTimeGainsAnOffset() throws {
        let m = PhotoMetadata(latitude: 47.3769, longitude: 8.5417, dateTimeOriginal: Self.at("2021-06-01 12:00:00"),
                              gpsTimestampUTC: Self.at("2021-06-01 10:00:30"))
        let item = try #require(PhotoItem.make(m, fileName: "a.jpg", size: 403))
        #expect(item.key == "photo:b6a2ca1f23d17d665a789bf3ba2c8891")
        #expect(item.version != "15b7803e61d2cc09")
        #expect(PhotoItem.takenAt(m)?.text == "2021-06-01T12:00:00+02:00")
    }
}
