import Foundation
import Glibc
import Testing
@testable import Adapters

/// Broken, hostile and non-photo inputs: each must end in a PhotoReadError with a clear
/// one-line reason, never a crash, a hang, or a read past the end of the file.
@Suite struct MalformedInputTests {
    let scratch: ScratchDirectory

    init() throws {
        scratch = try ScratchDirectory()
    }

    /// A named bad input and a fragment its error reason must contain.
    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let bytes: [UInt8]
        let reason: String
        var testDescription: String { name }
    }

    static let gpsTIFF: TIFFBuilder = {
        var builder = TIFFBuilder()
        builder.gps = [(1, .ascii("N")), (2, .rationals([(1, 1)])), (3, .ascii("E")), (4, .rationals([(2, 1)]))]
        return builder
    }()

    static let cases: [Case] = {
        var cases: [Case] = []
        cases.append(Case(name: "empty.jpg", bytes: [], reason: "file is empty"))
        cases.append(Case(name: "notes.jpg", bytes: Array("hello, this is text\n".utf8), reason: "not a recognised photo format (starts with 68 65 6c 6c"))
        cases.append(Case(name: "tiny.jpg", bytes: [0xFF], reason: "not a recognised photo format"))
        // An MP4's brands make it a movie, read as one whatever its name; this one has no movie header.
        cases.append(Case(name: "movie.heic", bytes: Containers.box("ftyp", Array("isom".utf8) + be32(0) + Array("isommp41".utf8)),
                          reason: "movie has no 'moov' box"))
        cases.append(Case(name: "canon.heic", bytes: Containers.box("ftyp", Array("crx ".utf8) + be32(1) + Array("crx ".utf8)),
                          reason: "brands crx , crx  is neither a HEIF/AVIF image nor an MP4/QuickTime movie"))

        // JPEG
        let jpeg = Containers.jpeg(exif: gpsTIFF.build())
        cases.append(Case(name: "truncated-app1.jpg", bytes: Array(jpeg.prefix(30)), reason: "runs past the end of the file"))
        cases.append(Case(name: "no-sos.jpg", bytes: [0xFF, 0xD8] + Containers.segment(0xE0, [1, 2, 3]), reason: "before its image data (truncated?)"))
        cases.append(Case(name: "cut-header.jpg", bytes: [0xFF, 0xD8, 0xFF, 0xE1, 0x00], reason: "inside a segment header"))
        cases.append(Case(name: "bad-length.jpg", bytes: [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x01, 0, 0], reason: "has invalid length 1"))
        cases.append(Case(name: "garbage-between.jpg", bytes: [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x02, 0x12, 0x34], reason: "expected a JPEG marker at offset 0x6"))
        cases.append(Case(name: "bad-tiff.jpg", bytes: Containers.jpeg(exif: Array("XX*\0\0\0\0\u{8}".utf8)), reason: "no II/MM byte-order mark"))
        cases.append(Case(name: "short-tiff.jpg", bytes: Containers.jpeg(exif: Array("II*\0".utf8)), reason: "TIFF header needs 8 bytes but the Exif data has 4"))

        // TIFF structure
        var outside = TIFFBuilder()
        outside.ifd0 = [(0x010F, .ascii("x"))]
        var outsideBytes = outside.build()
        outsideBytes.replaceSubrange(4..<8, with: [0x00, 0x00, 0xFF, 0x7F])  // IFD0 at 0x7fff0000
        cases.append(Case(name: "ifd-outside.tif", bytes: outsideBytes,
                          reason: "IFD0 offset 0x7fff0000 points outside the file (size \(outsideBytes.count))"))

        var loop = TIFFBuilder()
        loop.ifd0 = [(0x8769, .long(8))]  // Exif IFD pointer back at IFD0
        cases.append(Case(name: "loop.tif", bytes: loop.build(), reason: "IFD loop: Exif IFD at offset 0x8 was already read"))

        var gpsLoop = TIFFBuilder()
        gpsLoop.exif = [(0x9003, .ascii("2020:01:01 00:00:00"))]
        gpsLoop.ifd0 = [(0x8825, .long(8 + 2 + 12 * 2 + 4))]  // GPS pointer at the Exif IFD
        cases.append(Case(name: "gps-loop.tif", bytes: gpsLoop.build(), reason: "IFD loop: GPS IFD"))

        var hugeCount = gpsTIFF.build()
        hugeCount.replaceSubrange(8..<10, with: [0xFF, 0xFF])
        cases.append(Case(name: "huge-entries.tif", bytes: hugeCount, reason: "IFD0 at offset 0x8 claims 65535 entries (limit 1000)"))

        var manyEntries = TIFFBuilder().build()
        manyEntries += [UInt8](repeating: 0, count: 40)
        manyEntries.replaceSubrange(8..<10, with: [0x20, 0x00])  // 32 entries but ~40 bytes follow
        cases.append(Case(name: "short-ifd.tif", bytes: manyEntries, reason: "with 32 entries runs past the end of the file"))

        var hugeValue = TIFFBuilder()
        hugeValue.ifd0 = [(0x010F, .raw(type: 2, count: 0xFFFF_FFFF, field: 0x20))]
        cases.append(Case(name: "huge-value.tif", bytes: hugeValue.build(), reason: "tag 0x10f declares 4294967295 values, over the 64 KiB limit"))

        var valueOutside = TIFFBuilder()
        valueOutside.ifd0 = [(0x0110, .raw(type: 2, count: 100, field: 0x0001_0000))]
        cases.append(Case(name: "value-outside.tif", bytes: valueOutside.build(), reason: "value of tag 0x110 at offset 0x10000 (100 bytes) points outside the file"))

        var gpsOutside = TIFFBuilder()
        gpsOutside.ifd0 = [(0x8825, .long(0x7FFF_0000))]
        cases.append(Case(name: "gps-outside.jpg", bytes: Containers.jpeg(exif: gpsOutside.build()),
                          reason: "GPS IFD offset 0x7fff0000 points outside the Exif data (size 26)"))

        var bigTIFF = TIFFBuilder()
        bigTIFF.magic = [0x2B, 0x00]
        cases.append(Case(name: "big.tif", bytes: bigTIFF.build(), reason: "BigTIFF is not supported"))

        // PNG
        let png = Containers.png(chunks: [Containers.pngHeader, ("IDAT", [1, 2, 3])])
        cases.append(Case(name: "no-iend.png", bytes: png, reason: "without an IEND chunk (truncated?)"))
        cases.append(Case(name: "cut-chunk.png", bytes: Array(Containers.png(chunks: [Containers.pngHeader, ("eXIf", gpsTIFF.build())]).prefix(50)),
                          reason: "PNG chunk 'eXIf' at offset 0x21"))

        // WebP
        let webp = Containers.webp(chunks: [("EXIF", gpsTIFF.build())])
        cases.append(Case(name: "cut.webp", bytes: Array(webp.prefix(40)), reason: "RIFF header declares"))
        var lying = webp
        lying.replaceSubrange(16..<20, with: le32(100_000))
        cases.append(Case(name: "lying-chunk.webp", bytes: lying, reason: "WebP chunk 'EXIF' at offset 0xc (100000 bytes) runs past the end"))

        // HEIF
        let ftyp = Containers.ftypHEIC
        cases.append(Case(name: "cut-ftyp.heic", bytes: be32(24) + Array("ftypheic".utf8), reason: "too short for its 'ftyp' box"))
        cases.append(Case(name: "no-meta.heic", bytes: ftyp + Containers.box("mdat", [1, 2, 3]), reason: "HEIF file has no 'meta' box"))
        cases.append(Case(name: "tiny-box.heic", bytes: ftyp + be32(4) + Array("free".utf8), reason: "box 'free' at offset 0x18 has invalid size 4"))
        cases.append(Case(name: "cut-mdat.heic", bytes: ftyp + be32(1000) + Array("mdat".utf8) + [1, 2, 3], reason: "box 'mdat' at offset 0x18 (1000 bytes) runs past the end of the file"))
        return cases
    }()

    @Test("bad input gives a one-line reason", arguments: cases)
    func rejects(_ input: Case) throws {
        let path = try scratch.write(input.bytes, as: input.name)
        let error = try #require(readFailure(path), "\(input.name) was accepted")
        #expect(error.reason.contains(input.reason), "\(input.name): \(error.reason)")
        #expect(!error.reason.contains("\n"))
        #expect(error.description == error.reason)
    }

    @Test("a missing file, a directory and a FIFO are refused without blocking")
    func notRegularFiles() throws {
        #expect(readFailure(scratch.path + "/missing.jpg")?.reason == "cannot open file: No such file or directory")
        #expect(readFailure(scratch.path)?.reason == "not a regular file")
        let fifo = scratch.path + "/pipe.jpg"
        #expect(mkfifo(fifo, 0o600) == 0)
        #expect(readFailure(fifo)?.reason == "not a regular file")
    }

    @Test("an unreadable file reports permission denied",
          .disabled(if: getuid() == 0, "root bypasses file permissions, so there is nothing to deny"))
    func permissionDenied() throws {
        let path = try scratch.write(Containers.jpeg(), as: "locked.jpg")
        #expect(chmod(path, 0) == 0)
        #expect(readFailure(path)?.reason == "cannot open file: Permission denied")
    }

    @Test("an .xmp file that is not XMP is refused")
    func notXMP() throws {
        let path = try scratch.write(Array("just some words".utf8), as: "notes.xmp")
        #expect(readFailure(path)?.reason == "not an XMP sidecar: no RDF namespace found")
    }

    @Test("the read budget stops runaway reads")
    func budget() throws {
        let path = try scratch.write([UInt8](repeating: 7, count: 300), as: "blob.bin")
        let file = try BoundedFile(path: path, budget: 200)
        #expect(try file.read(at: 0, count: 150).count == 150)
        #expect(throws: PhotoReadError.self) { try file.read(at: 150, count: 100) }
        #expect(file.bytesRead == 150)
        #expect(throws: PhotoReadError.self) { try file.read(at: 250, count: 51) }
    }

    /// Seeded byte flips and truncations of valid hand-built files in every container:
    /// whatever the damage, the reader must return or throw, and never trap.
    @Test("random corruption never crashes", arguments: 0..<6)
    func mutations(containerIndex: Int) throws {
        var builder = TIFFBuilder(bigEndian: containerIndex % 2 == 1)
        builder.ifd0 = [(0x010F, .ascii("Make")), (0x0110, .ascii("Some Model Name"))]
        builder.exif = [(0x9003, .ascii("2021:03:04 05:06:07")), (0x9011, .ascii("+01:00"))]
        builder.gps = [(1, .ascii("N")), (2, .rationals([(1, 1), (2, 1), (3, 1)])), (3, .ascii("E")), (4, .rationals([(4, 1), (5, 1), (6, 1)])),
                       (7, .rationals([(1, 1), (2, 1), (3, 1)])), (0x1D, .ascii("2021:03:04"))]
        let tiff = builder.build()
        let xmp = "<x:xmpmeta><rdf:RDF><rdf:Description exif:GPSLatitude='1,2.5N'><tiff:Make>M</tiff:Make></rdf:Description></rdf:RDF></x:xmpmeta>"
        let original: [UInt8]
        let name: String
        switch containerIndex {
        case 0, 1: (original, name) = (tiff, "m.tif")
        case 2: (original, name) = (Containers.jpeg(exif: tiff, xmp: xmp), "m.jpg")
        case 3: (original, name) = (Containers.png(chunks: [Containers.pngHeader, ("eXIf", tiff), ("IEND", [])]), "m.png")
        case 4: (original, name) = (Containers.webp(chunks: [("EXIF", tiff), ("XMP ", Array(xmp.utf8))]), "m.webp")
        default: (original, name) = (ISOBMFFTests.heif(exif: tiff, xmp: xmp, layout: .init(version: 1, offsetSize: 4, lengthSize: 4, baseOffsetSize: 4, indexSize: 0, method: 0)), "m.heic")
        }
        var random = SplitMix64(state: UInt64(containerIndex) &* 0x1234_5678_9ABC)
        for round in 0..<400 {
            var bytes = original
            for _ in 0..<Int.random(in: 1...4, using: &random) {
                bytes[Int.random(in: 0..<bytes.count, using: &random)] = UInt8.random(in: 0...255, using: &random)
            }
            if round % 5 == 0 { bytes = Array(bytes.prefix(Int.random(in: 0..<bytes.count, using: &random))) }
            let path = try scratch.write(bytes, as: name)
            if let error = readFailure(path) {
                #expect(!error.reason.isEmpty && !error.reason.contains("\n"), "\(name) round \(round): \(error.reason)")
            }
        }
    }
}
