import Testing
@testable import Adapters

/// Movie headers built by hand in the shapes real writers use (see QuickTimeReader's notes):
/// the integration tests read ffmpeg's and exiftool's own files; these pin the layouts those
/// tools do not write here (64-bit sizes, `mvhd` version 1, DDMM.MMM coordinates, huge `moov`).
@Suite struct QuickTimeTests {
    let scratch: ScratchDirectory

    init() throws { scratch = try ScratchDirectory() }

    static func mvhd(version: UInt8, created: Int, scale: Int = 600, duration: Int) -> [UInt8] {
        let times = version == 1 ? be64(created) + be64(created) + be32(scale) + be64(duration)
                                 : be32(created) + be32(created) + be32(scale) + be32(duration)
        return Containers.fullBox("mvhd", version: version, times + [UInt8](repeating: 0, count: 80))
    }

    /// Apple's `moov/meta`: an `mdta` handler, a `keys` list and the `ilst` values by key index.
    static func appleMeta(_ entries: [(String, String)]) -> [UInt8] {
        let hdlr = Containers.fullBox("hdlr", version: 0, be32(0) + Array("mdta".utf8) + [UInt8](repeating: 0, count: 13))
        var keys = be32(entries.count)
        var ilst: [UInt8] = []
        for (index, (key, value)) in entries.enumerated() {
            keys += be32(key.utf8.count + 8) + Array("mdta".utf8) + Array(key.utf8)
            ilst += be32(8 + 16 + value.utf8.count) + be32(index + 1) + Containers.box("data", be32(1) + be32(0) + Array(value.utf8))
        }
        return Containers.box("meta", hdlr + Containers.fullBox("keys", version: 0, keys) + Containers.box("ilst", ilst))
    }

    static func userText(_ code: [UInt8], _ text: String) -> [UInt8] {
        be32(8 + 4 + text.utf8.count) + code + be16(text.utf8.count) + be16(0x15C7) + Array(text.utf8)
    }

    @Test func aMovieAtTheEndBehindA64BitMediaBoxIsFoundWithoutReadingTheFrames() throws {
        let frames = [UInt8](repeating: 0xAB, count: 1 << 20)
        let mdat = be32(1) + Array("mdat".utf8) + be64(16 + frames.count) + frames
        let moov = Containers.box("moov", Self.mvhd(version: 0, created: 3_786_912_000, duration: 1800) + Self.appleMeta([
            ("com.apple.quicktime.location.ISO6709", "+37.3318-122.0312+045.000/"),
            ("com.apple.quicktime.creationdate", "2024-01-01T10:20:30+0100"),
            ("com.apple.quicktime.make", "Apple"), ("com.apple.quicktime.model", "iPhone 15 Pro"),
            ("com.apple.quicktime.content.identifier", "A1B2C3D4-0000-4000-8000-00000000000F"),
            ("com.apple.quicktime.location.accuracy.horizontal", "14.5"),
        ]))
        let path = try scratch.write(Containers.box("ftyp", Array("qt  ".utf8) + be32(0) + Array("qt  ".utf8)) + mdat + moov, as: "IMG_1.MOV")
        let (m, format, bytesRead) = try PhotoGeotagReader.read(path: path)
        #expect(format == .movie)
        #expect(m.isVideo && m.latitude == 37.3318 && m.longitude == -122.0312 && m.altitudeM == 45 && m.horizontalErrorM == 14.5)
        #expect(m.dateTimeOriginal?.description == "2024-01-01T10:20:30" && m.offset == "+01:00")
        #expect(m.createdUTC?.description == "2024-01-01T00:00:00")   // 3_786_912_000 s after 1904-01-01
        #expect(m.make == "Apple" && m.model == "iPhone 15 Pro" && m.durationMs == 3000)
        #expect(m.contentIdentifier == "A1B2C3D4-0000-4000-8000-00000000000F")
        #expect(bytesRead < 16 << 10, "read \(bytesRead) bytes of a 1 MiB movie")
    }

    @Test func userDataAndVersion1HeaderWithoutFtyp() throws {
        let udta = Containers.box("udta", Self.userText([0xA9] + Array("xyz".utf8), "-3345.600+15112.560/")
            + Self.userText([0xA9] + Array("mak".utf8), "SONY") + Self.userText([0xA9] + Array("mod".utf8), "ILCE-7M4"))
        let moov = Containers.box("moov", Self.mvhd(version: 1, created: 2_082_844_800 + 86_400, duration: 600) + udta)
        let path = try scratch.write(moov + Containers.box("mdat", [1, 2, 3]), as: "old.mov")
        let (m, format, _) = try PhotoGeotagReader.read(path: path)
        #expect(format == .movie)
        #expect(m.latitude == -33.76 && abs((m.longitude ?? 0) - 151.2093333) < 1e-6)
        #expect(m.createdUTC?.description == "1970-01-02T00:00:00" && m.dateTimeOriginal == nil && m.durationMs == 1000)
        #expect(m.make == "SONY" && m.model == "ILCE-7M4")
    }

    @Test func aLargeMovieHeaderIsWalkedBoxByBoxAndJunkAfterItIsIgnored() throws {
        let track = Containers.box("trak", [UInt8](repeating: 7, count: 200 << 10))
        let udta = Containers.box("udta", Self.userText([0xA9] + Array("xyz".utf8), "+47.3769+008.5417/"))
        let moov = Containers.box("moov", Self.mvhd(version: 0, created: 3_786_912_000, duration: 600) + track + udta)
        let file = Containers.box("ftyp", Array("mp42".utf8) + be32(0) + Array("mp42isom".utf8)) + Containers.box("mdat", [1]) + moov + [0, 0, 1]
        let (m, _, bytesRead) = try PhotoGeotagReader.read(path: try scratch.write(file, as: "long.mp4"))
        #expect(m.latitude == 47.3769 && m.longitude == 8.5417 && m.createdUTC?.description == "2024-01-01T00:00:00")
        #expect(bytesRead < 32 << 10, "read \(bytesRead) bytes of a 200 KiB track")
    }

    @Test func aMovieHeaderOverTheLimitIsSkippedWithItsSize() throws {
        let moov = be32(8 + (5 << 20)) + Array("moov".utf8) + [UInt8](repeating: 0, count: 5 << 20)
        let path = try scratch.write(Containers.box("ftyp", Array("mp42".utf8) + be32(0) + Array("mp42isom".utf8)) + moov, as: "long.mp4")
        #expect(readFailure(path)?.reason == "'moov' box of 5 MiB exceeds the 4 MiB limit")
    }

    @Test(arguments: [
        ("+47.3769+008.5417/", 47.3769, 8.5417, Double.nan),
        ("-33.8688+151.2093+058.000/", -33.8688, 151.2093, 58),
        ("+4722.614+00832.502/", 47.3769, 8.541_7, .nan),
        ("+472236.84-0083230.12-12.5/", 47.376_9, -8.541_7, -12.5),
    ])
    func iso6709(text: String, latitude: Double, longitude: Double, altitude: Double) throws {
        let point = try #require(MovieFields.iso6709(text))
        #expect(abs(point.latitude - latitude) < 1e-4 && abs(point.longitude - longitude) < 1e-4)
        #expect(altitude.isNaN ? point.altitude.isNaN : point.altitude == altitude)
    }

    @Test func notIso6709() {
        for text in ["", "47.3769,8.5417", "+47.3769", "+ab+cd/", "+123456789.0+1/"] { #expect(MovieFields.iso6709(text) == nil, "\(text)") }
    }
}
