import Testing
@testable import Adapters

/// Takeout sidecar JSON as Google writes it (immich-go's testdata, google-photos-takeout-helper).
@Suite struct TakeoutSidecarReaderTests {
    private func read(_ json: String) throws -> PhotoMetadata {
        try TakeoutSidecarReader.metadata(from: Array(json.utf8))
    }

    private func place(_ lat: Double, _ lon: Double, _ alt: Double = 0) -> String {
        #"{"latitude": \#(lat), "longitude": \#(lon), "altitude": \#(alt), "latitudeSpan": 0.0, "longitudeSpan": 0.0}"#
    }

    @Test func geoDataExifWins_andTheTimestampIsUTCSeconds() throws {
        let m = try read("""
            {"title": "IMG_1.jpg", "description": "", "imageViews": "12",
             "creationTime": {"timestamp": "1600000999", "formatted": "Sep 13, 2020"},
             "photoTakenTime": {"timestamp": "1600000000", "formatted": "Sep 13, 2020, 12:26:40 PM UTC"},
             "geoData": \(place(48.1, 11.5, 520.0)), "geoDataExif": \(place(47.3769, 8.5417, 408.5)),
             "people": [{"name": "A"}], "url": "https://photos.google.com/photo/AF1Qip",
             "googlePhotosOrigin": {"mobileUpload": {"deviceFolder": {"localFolderName": ""}, "deviceType": "ANDROID_PHONE"}}}
            """)
        #expect(m.latitude == 47.3769 && m.longitude == 8.5417 && m.altitudeM == 408.5)
        #expect(m.takenUTC == LocalDateTime(year: 2020, month: 9, day: 13, hour: 12, minute: 26, second: 40))
        #expect(m.dateTimeOriginal == nil && m.offset == nil)
    }

    @Test func zeroZeroMeansNoPlace_thenGeoDataIsUsed() throws {
        let m = try read(#"{"geoDataExif": \#(place(0, 0)), "geoData": \#(place(-33.8568, 151.2153))}"#)
        #expect(m.latitude == -33.8568 && m.longitude == 151.2153)
        #expect(m.altitudeM == nil, "0.0 is Takeout's unknown altitude")
        let none = try read(#"{"geoDataExif": \#(place(0, 0)), "geoData": \#(place(0, 0)), "photoTakenTime": {"timestamp": "0"}}"#)
        #expect(none == PhotoMetadata())
    }

    @Test func oddValuesAreLeftOut_notGuessed() throws {
        let m = try read(#"{"geoData": {"latitude": 91.0, "longitude": 8.0}, "photoTakenTime": {"timestamp": "soon"}}"#)
        #expect(m == PhotoMetadata())
        let numeric = try read(#"{"photoTakenTime": {"timestamp": 1600000000}, "geoData": "none"}"#)
        #expect(numeric.takenUTC?.year == 2020)
    }

    @Test func notJSON_isOneLineNamingTheLine() {
        for bad in ["", "[1, 2]", "{\"geoData\": {\"latitude\": ", "{\n\"title\": x}", "<html>"] {
            let error = #expect(throws: PhotoReadError.self) { try read(bad) }
            #expect(error?.reason.hasPrefix("not a Takeout sidecar") == true, "\(bad): \(error?.reason ?? "")")
        }
        let error = #expect(throws: PhotoReadError.self) { try read("{\n\"title\": x}") }
        #expect(error?.reason.contains("line 2") == true)
    }

    @Test func theFilesOwnPlaceAndTimeWin_theSidecarFillsTheRest() {
        let dto = LocalDateTime(year: 2019, month: 7, day: 1, hour: 12, minute: 0, second: 0)
        let utc = LocalDateTime(year: 2019, month: 7, day: 1, hour: 10, minute: 0, second: 0)
        let sidecar = PhotoMetadata(latitude: 1, longitude: 2, altitudeM: 300)
        var sidecarWithTime = sidecar
        sidecarWithTime.takenUTC = utc
        let own = TakeoutSidecarReader.filling(PhotoMetadata(latitude: 47, longitude: 8, dateTimeOriginal: dto), from: sidecarWithTime)
        #expect(own.latitude == 47 && own.longitude == 8 && own.altitudeM == nil, "the sidecar's altitude belongs to its own place")
        #expect(own.dateTimeOriginal == dto && own.takenUTC == utc)
        let filled = TakeoutSidecarReader.filling(PhotoMetadata(dateTimeOriginal: dto), from: sidecarWithTime)
        #expect(filled.latitude == 1 && filled.longitude == 2 && filled.altitudeM == 300)
        #expect(PhotoItem.takenAt(filled)?.text == "2019-07-01T12:00:00+02:00")
    }
}
