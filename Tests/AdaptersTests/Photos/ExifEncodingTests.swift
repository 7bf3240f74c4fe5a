import Testing
@testable import Adapters

/// The odd GPS, date and text encodings real cameras write, built as TIFF bytes by hand
/// because exiftool normalises them away when it writes.
@Suite struct ExifEncodingTests {
    typealias Entries = [(UInt16, TIFFBuilder.Value)]

    let scratch: ScratchDirectory

    init() throws {
        scratch = try ScratchDirectory()
    }

    private func read(_ builder: TIFFBuilder, as name: String = "photo.tif") throws -> (PhotoMetadata, PhotoFormat) {
        let path = try scratch.write(builder.build(), as: name)
        let (metadata, format, _) = try PhotoGeotagReader.read(path: path)
        return (metadata, format)
    }

    private func read(gps: Entries) throws -> PhotoMetadata {
        try read(TIFFBuilder(gps: gps)).0
    }

    @Test("standard DMS rationals, refs, altitude, GPS time and Exif dates", arguments: [false, true])
    func standardEncoding(bigEndian: Bool) throws {
        var builder = TIFFBuilder(bigEndian: bigEndian)
        builder.ifd0 = [(0x010F, .ascii("Canon")), (0x0110, .ascii("Canon EOS R5")), (0x0132, .ascii("2022:01:01 00:00:00"))]
        builder.exif = [
            (0x9003, .ascii("2021:03:04 05:06:07")), (0x9011, .ascii("+0200")), (0x9291, .ascii("045")),
            (0xA420, .ascii("0123456789abcdef")), (0xA431, .ascii("SN-42")),
        ]
        builder.gps = [
            (1, .ascii("N")), (2, .rationals([(48, 1), (51, 1), (2445, 100)])),
            (3, .ascii("W")), (4, .rationals([(2, 1), (21, 1), (1234, 100)])),
            (5, .byte(0)), (6, .rationals([(355, 10)])), (7, .rationals([(5, 1), (6, 1), (75, 10)])),
            (0x1D, .ascii("2021:03:04")), (0x1F, .rationals([(5, 1)])),
        ]
        let (metadata, format) = try read(builder)
        #expect(format == .tiff)
        #expect(abs(metadata.latitude! - (48 + 51.0 / 60 + 24.45 / 3600)) < 1e-9)
        #expect(abs(metadata.longitude! + (2 + 21.0 / 60 + 12.34 / 3600)) < 1e-9)
        #expect(metadata.altitudeM == 35.5)
        #expect(metadata.horizontalErrorM == 5)
        #expect(metadata.gpsTimestampUTC == LocalDateTime(year: 2021, month: 3, day: 4, hour: 5, minute: 6, second: 7, nanosecond: 500_000_000))
        #expect(metadata.dateTimeOriginal == LocalDateTime(year: 2021, month: 3, day: 4, hour: 5, minute: 6, second: 7))
        #expect(metadata.offset == "+02:00")
        #expect(metadata.subSecond == "045")
        #expect(metadata.make == "Canon")
        #expect(metadata.model == "Canon EOS R5")
        #expect(metadata.imageUniqueID == "0123456789abcdef")
        #expect(metadata.cameraSerial == "SN-42")
    }

    @Test("a single rational of decimal degrees")
    func decimalDegrees() throws {
        let metadata = try read(gps: [
            (1, .ascii("S")), (2, .rationals([(33_868_820, 1_000_000)])),
            (3, .ascii("E")), (4, .rationals([(151_209_296, 1_000_000)])),
        ])
        #expect(metadata.latitude == -33.86882)
        #expect(metadata.longitude == 151.209296)
    }

    @Test("degrees and decimal minutes with seconds 0/0 or 0/1", arguments: [UInt32(0), 1])
    func degreesAndMinutes(secondsDenominator: UInt32) throws {
        let latitude: [(UInt32, UInt32)] = [(48, 1), (5133, 100), (0, secondsDenominator)]
        let longitude: [(UInt32, UInt32)] = [(2, 1), (2100, 100), (0, secondsDenominator)]
        let metadata = try read(gps: [
            (1, .ascii("N")), (2, .rationals(latitude)),
            (3, .ascii("E")), (4, .rationals(longitude)),
        ])
        #expect(abs(metadata.latitude! - (48 + 51.33 / 60)) < 1e-12)
        #expect(abs(metadata.longitude! - 2.35) < 1e-12)
    }

    @Test("a zero denominator in the degrees means no position, not NaN")
    func zeroDenominator() throws {
        let metadata = try read(gps: [
            (1, .ascii("N")), (2, .rationals([(0, 0), (0, 0), (0, 0)])),
            (3, .ascii("E")), (4, .rationals([(2, 1), (21, 1), (0, 1)])),
            (6, .rationals([(100, 0)])), (0x1F, .rationals([(3, 0)])),
        ])
        #expect(metadata.latitude == nil)
        #expect(metadata.longitude == nil)
        #expect(metadata.altitudeM == nil)
        #expect(metadata.horizontalErrorM == nil)
    }

    @Test("missing refs mean N/E, but a signed negative value stays negative")
    func missingReferences() throws {
        let metadata = try read(gps: [
            (2, .rationals([(10, 1), (30, 1), (0, 1)])),
            (4, .srationals([(-73, 1), (-30, 1), (0, 1)])),
        ])
        #expect(metadata.latitude == 10.5)
        #expect(metadata.longitude == -73.5)
    }

    @Test("refs in lowercase, padded with spaces or NULs")
    func sloppyReferences() throws {
        let metadata = try read(gps: [
            (1, .asciiBytes(Array("s\0\0\0\0".utf8))), (2, .rationals([(10, 1), (0, 1), (0, 1)])),
            (3, .asciiBytes(Array(" w ".utf8))), (4, .rationals([(20, 1), (0, 1), (0, 1)])),
        ])
        #expect(metadata.latitude == -10)
        #expect(metadata.longitude == -20)
    }

    @Test("an S ref on an already negative value does not flip it back")
    func doubleNegative() throws {
        let metadata = try read(gps: [
            (1, .ascii("S")), (2, .srationals([(-10, 1)])),
            (3, .ascii("E")), (4, .rationals([(20, 1)])),
        ])
        #expect(metadata.latitude == -10)
    }

    @Test("positions off the globe, or exactly (0, 0), are no position",
          arguments: [(UInt32(91), UInt32(10)), (10, 181), (0, 0)])
    func rejectedPositions(latitude: UInt32, longitude: UInt32) throws {
        let one: UInt32 = 1
        let metadata = try read(gps: [
            (1, .ascii("N")), (2, .rationals([(latitude, one)])),
            (3, .ascii("E")), (4, .rationals([(longitude, one)])),
        ])
        #expect(metadata.latitude == nil)
        #expect(metadata.longitude == nil)
    }

    @Test("altitude below sea level, as BYTE 1 or ASCII \"1\"",
          arguments: [TIFFBuilder.Value.byte(1), .ascii("1")])
    func belowSeaLevel(reference: TIFFBuilder.Value) throws {
        let metadata = try read(gps: [(5, reference), (6, .rationals([(4125, 100)]))])
        #expect(metadata.altitudeM == -41.25)
    }

    @Test("text that is not UTF-8 is read as Latin-1; trailing NULs and spaces are trimmed")
    func textDecoding() throws {
        var builder = TIFFBuilder()
        builder.ifd0 = [
            (0x010F, .asciiBytes([0x4B, 0x61, 0x6D, 0xE9, 0x72, 0x61, 0x00])),  // "Kaméra" in Latin-1
            (0x0110, .asciiBytes(Array("X100  \0\0\0".utf8))),
        ]
        builder.exif = [(0xA431, .asciiBytes(Array("  123\0garbage".utf8))), (0xA420, .asciiBytes(Array("    \0".utf8)))]
        let metadata = try read(builder).0
        #expect(metadata.make == "Kaméra")
        #expect(metadata.model == "X100")
        #expect(metadata.cameraSerial == "123")
        #expect(metadata.imageUniqueID == nil)
    }

    @Test("a blank DateTimeOriginal falls back to CreateDate, then to IFD0 DateTime")
    func dateFallbacks() throws {
        var builder = TIFFBuilder()
        builder.ifd0 = [(0x0132, .ascii("2020:02:02 02:02:02"))]
        builder.exif = [(0x9003, .ascii("    :  :     :  :  ")), (0x9004, .ascii("2019:01:01 01:01:01"))]
        #expect(try read(builder).0.dateTimeOriginal == LocalDateTime(year: 2019, month: 1, day: 1, hour: 1, minute: 1, second: 1))
        builder.exif = [(0x9003, .ascii("0000:00:00 00:00:00"))]
        #expect(try read(builder).0.dateTimeOriginal == LocalDateTime(year: 2020, month: 2, day: 2, hour: 2, minute: 2, second: 2))
    }

    @Test("a blank OffsetTimeOriginal falls back to OffsetTime")
    func offsetFallback() throws {
        var builder = TIFFBuilder()
        builder.exif = [(0x9011, .ascii("   :  ")), (0x9010, .ascii("-05:30"))]
        #expect(try read(builder).0.offset == "-05:30")
    }

    @Test("raw-file TIFF variants are read by content whatever the extension",
          arguments: [("RO", false, "a.orf"), ("RS", false, "b.orf"), ("OR", true, "c.orf"), ("U\0", false, "d.rw2"), ("*\0", false, "e.cr2")])
    func rawVariants(magic: String, bigEndian: Bool, name: String) throws {
        var builder = TIFFBuilder(bigEndian: bigEndian)
        builder.magic = Array(magic.utf8)
        if name.hasSuffix("cr2") { builder.headerGap = Array("CR\u{2}\0".utf8) + [0, 0, 0, 0] }
        builder.ifd0 = [(0x010F, .ascii("OM Digital Solutions"))]
        builder.gps = [(1, .ascii("N")), (2, .rationals([(1, 2)])), (3, .ascii("E")), (4, .rationals([(3, 4)]))]
        let (metadata, format) = try read(builder, as: name)
        #expect(format == .tiff)
        #expect(metadata.make == "OM Digital Solutions")
        #expect(metadata.latitude == 0.5)
        #expect(metadata.longitude == 0.75)
    }

    @Test("Exif inside each container: JPEG APP1, PNG eXIf, WebP EXIF with and without the Exif prefix")
    func containers() throws {
        var builder = TIFFBuilder(bigEndian: true)
        builder.gps = [(1, .ascii("N")), (2, .rationals([(12, 1)])), (3, .ascii("W")), (4, .rationals([(34, 1)]))]
        let tiff = builder.build()
        let files: [(String, [UInt8], PhotoFormat)] = [
            ("a.jpg", Containers.jpeg(exif: tiff), .jpeg),
            ("b.png", Containers.png(chunks: [Containers.pngHeader, ("eXIf", tiff), ("IDAT", [1, 2, 3]), ("IEND", [])]), .png),
            ("c.webp", Containers.webp(chunks: [("VP8X", [UInt8](repeating: 0, count: 10)), ("EXIF", tiff)]), .webp),
            ("d.webp", Containers.webp(chunks: [("VP8X", [UInt8](repeating: 0, count: 10)), ("EXIF", Array("Exif\0\0".utf8) + tiff)]), .webp),
        ]
        for (name, bytes, expectedFormat) in files {
            let (metadata, format, _) = try PhotoGeotagReader.read(path: try scratch.write(bytes, as: name))
            #expect(format == expectedFormat, "\(name)")
            #expect(metadata.latitude == 12, "\(name)")
            #expect(metadata.longitude == -34, "\(name)")
        }
    }

    @Test("Exif values win over embedded XMP, which fills the gaps")
    func exifThenXMP() throws {
        var builder = TIFFBuilder()
        builder.ifd0 = [(0x010F, .ascii("ExifMake"))]
        let xmp = """
            <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
            <rdf:Description tiff:Make="XMPMake" tiff:Model="XMPModel" exif:GPSLatitude="1,30N" exif:GPSLongitude="2,15W"/>
            </rdf:RDF></x:xmpmeta>
            """
        let path = try scratch.write(Containers.jpeg(exif: builder.build(), xmp: xmp), as: "both.jpg")
        let metadata = try PhotoGeotagReader.read(path: path).0
        #expect(metadata.make == "ExifMake")
        #expect(metadata.model == "XMPModel")
        #expect(metadata.latitude == 1.5)
        #expect(metadata.longitude == -2.25)
    }
}
