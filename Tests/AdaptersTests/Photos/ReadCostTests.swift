import Testing
@testable import Adapters

/// The reader must touch only metadata bytes: large image payloads are skipped by offset.
@Suite struct ReadCostTests {
    static let limit = 128 << 10
    static let imageBytes = 5_000_000

    let scratch: ScratchDirectory
    let tiff: [UInt8]

    init() throws {
        scratch = try ScratchDirectory()
        tiff = Self.builder().build()
    }

    static func builder() -> TIFFBuilder {
        var builder = TIFFBuilder()
        builder.ifd0 = [(0x010F, .ascii("Leica"))]
        builder.gps = [(1, .ascii("N")), (2, .rationals([(45, 1)])), (3, .ascii("E")), (4, .rationals([(7, 1)]))]
        return builder
    }

    private func check(_ bytes: [UInt8], as name: String) throws -> Int {
        let (metadata, _, bytesRead) = try PhotoGeotagReader.read(path: try scratch.write(bytes, as: name))
        #expect(metadata.make == "Leica", "\(name)")
        #expect(metadata.latitude == 45, "\(name)")
        #expect(bytesRead < Self.limit, "\(name) read \(bytesRead) bytes")
        return bytesRead
    }

    @Test("a small JPEG costs one read of the whole file")
    func smallJPEG() throws {
        let bytes = Containers.jpeg(exif: tiff)
        #expect(try check(bytes, as: "small.jpg") == bytes.count)
    }

    @Test("a JPEG with 5 MB of image data reads only its head")
    func largeJPEG() throws {
        let bytesRead = try check(Containers.jpeg(exif: tiff, imageBytes: Self.imageBytes), as: "large.jpg")
        #expect(bytesRead == PhotoGeotagReader.headSize)
    }

    @Test("IFDs past the head but within the first 16 KiB are found with one more read, of the rest of those 16 KiB")
    func ifdsPastTheHead() throws {
        var builder = Self.builder()
        builder.headerGap = [UInt8](repeating: 0, count: 10_000)
        let bytesRead = try check(Containers.jpeg(exif: builder.build(), imageBytes: Self.imageBytes), as: "deeper.jpg")
        #expect(bytesRead == PhotoGeotagReader.nearStartSize)
    }

    @Test("1 MB of ICC segments before the Exif APP1 is skipped, not read")
    func skippedSegment() throws {
        let icc = Array("ICC_PROFILE\0".utf8) + [UInt8](repeating: 0xAA, count: 60_000)
        let segments = Array(repeating: (UInt8(0xE2), icc), count: 17)
        let bytesRead = try check(Containers.jpeg(exif: tiff, segmentsBefore: segments, imageBytes: Self.imageBytes), as: "icc.jpg")
        #expect(bytesRead < PhotoGeotagReader.headSize + 1024)
    }

    @Test("PNG eXIf after 5 MB of IDAT is found by walking chunk headers")
    func pngAfterIDAT() throws {
        let idat = (0..<50).map { _ in ("IDAT", [UInt8](repeating: 0x11, count: Self.imageBytes / 50)) }
        let bytes = Containers.png(chunks: [Containers.pngHeader] + idat + [("eXIf", tiff), ("IEND", [])])
        _ = try check(bytes, as: "late.png")
    }

    @Test("HEIF whose meta box follows 5 MB of mdat")
    func heifMetaLast() throws {
        let layout = ISOBMFFTests.Layout(version: 1, offsetSize: 4, lengthSize: 4, baseOffsetSize: 0, indexSize: 0, method: 0)
        var bytes = ISOBMFFTests.heif(exif: tiff, xmp: nil, layout: layout)
        // Grow the mdat in place: its payload is followed by meta, whose extent offsets stay valid
        // because the Exif item sits at the start of mdat.
        let mdat = ISOBMFFTests.find("mdat", in: bytes)
        let oldSize = Int(ByteOrder.big.u32(bytes[...], at: mdat))
        bytes.replaceSubrange(mdat..<(mdat + 4), with: be32(oldSize + Self.imageBytes))
        bytes.insert(contentsOf: [UInt8](repeating: 0, count: Self.imageBytes), at: mdat + oldSize)
        _ = try check(bytes, as: "late.heic")
    }

    @Test("a TIFF whose IFDs sit after 5 MB of strips")
    func tiffIFDLast() throws {
        var builder = Self.builder()
        builder.headerGap = [UInt8](repeating: 0, count: Self.imageBytes)
        _ = try check(builder.build(), as: "late.tif")
    }
}
