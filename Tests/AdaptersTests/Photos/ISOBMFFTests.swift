import Testing
@testable import Adapters

/// HEIF item lookup across the iloc layouts writers use, built by hand: the encoders
/// available here each produce only one or two of these layouts.
@Suite struct ISOBMFFTests {
    /// How the iloc box is encoded and where the items' bytes are stored.
    struct Layout: Sendable, CustomTestStringConvertible {
        var version: UInt8
        var offsetSize: Int
        var lengthSize: Int
        var baseOffsetSize: Int
        var indexSize: Int
        /// 0: bytes in `mdat`, addressed from the file start; 1: bytes in `idat`.
        var method: Int
        var metaFirst = false
        var exifHeaderOffset = 6
        var splitExif = false

        var testDescription: String {
            "iloc v\(version) offset \(offsetSize) length \(lengthSize) base \(baseOffsetSize) index \(indexSize) method \(method)"
                + (metaFirst ? " meta-first" : "") + " exif-offset \(exifHeaderOffset)" + (splitExif ? " split" : "")
        }
    }

    /// A HEIF with an Exif item (id 1) and, if `xmp` is given, an XMP mime item (id 2).
    static func heif(exif tiff: [UInt8], xmp: String?, layout: Layout) -> [UInt8] {
        let exifItem = be32(layout.exifHeaderOffset) + (layout.exifHeaderOffset == 6 ? Array("Exif\0\0".utf8) : []) + tiff
        let xmpItem = xmp.map { Array($0.utf8) } ?? []
        let stored = exifItem + xmpItem
        let ftyp = Containers.ftypHEIC

        func width(_ value: Int, _ size: Int) -> [UInt8] {
            size == 0 ? [] : size == 4 ? be32(value) : be64(value)
        }
        /// The meta box, given the offset of the stored bytes within their container.
        func meta(storeStart: Int) -> [UInt8] {
            var items: [(id: Int, extents: [(offset: Int, length: Int)])] = []
            let exifExtents = layout.splitExif
                ? [(0, 10), (10, exifItem.count - 10)]
                : [(0, layout.lengthSize == 0 ? 0 : exifItem.count)]
            items.append((1, exifExtents))
            if xmp != nil { items.append((2, [(exifItem.count, xmpItem.count)])) }

            // With a base offset the extents are relative to it; without one they carry the full offset.
            let base = layout.baseOffsetSize == 0 ? 0 : storeStart
            var iloc = [UInt8((layout.offsetSize << 4) | layout.lengthSize), UInt8((layout.baseOffsetSize << 4) | layout.indexSize)]
            iloc += layout.version < 2 ? be16(items.count) : be32(items.count)
            for item in items {
                iloc += layout.version < 2 ? be16(item.id) : be32(item.id)
                if layout.version >= 1 { iloc += be16(layout.method) }
                iloc += be16(0) + width(base, layout.baseOffsetSize) + be16(item.extents.count)
                for extent in item.extents {
                    if layout.version >= 1 { iloc += width(0, layout.indexSize) }
                    iloc += width(storeStart - base + extent.offset, layout.offsetSize) + width(extent.length, layout.lengthSize)
                }
            }
            var iinf = be16(items.count) + Containers.infe(id: 1, type: "Exif")
            if xmp != nil { iinf += Containers.infe(id: 2, type: "mime", contentType: "application/rdf+xml") }
            var children = Containers.fullBox("hdlr", version: 0, be32(0) + Array("pict".utf8) + [UInt8](repeating: 0, count: 13))
            children += Containers.fullBox("pitm", version: 0, be16(3))
            children += Containers.fullBox("iinf", version: 0, iinf)
            children += Containers.fullBox("iloc", version: layout.version, iloc)
            if layout.method == 1 { children += Containers.box("idat", stored) }
            return Containers.fullBox("meta", version: 0, children)
        }

        if layout.method == 1 {
            return ftyp + meta(storeStart: 0) + Containers.box("mdat", [1, 2, 3, 4])
        }
        if layout.metaFirst {
            let metaSize = meta(storeStart: 0).count  // field widths do not depend on the values
            let storeStart = ftyp.count + metaSize + 8
            return ftyp + meta(storeStart: storeStart) + Containers.box("mdat", stored)
        }
        let storeStart = ftyp.count + 8
        return ftyp + Containers.box("mdat", stored) + meta(storeStart: storeStart)
    }

    static let tiff: [UInt8] = {
        var builder = TIFFBuilder(bigEndian: true)
        builder.ifd0 = [(0x010F, .ascii("Apple")), (0x0110, .ascii("iPhone 15 Pro"))]
        builder.gps = [(1, .ascii("S")), (2, .rationals([(3, 2)])), (3, .ascii("E")), (4, .rationals([(5, 4)]))]
        return builder.build()
    }()

    static let xmp = "<x:xmpmeta xmlns:x='adobe:ns:meta/'><rdf:RDF><rdf:Description xmlns:exifEX='http://cipa.jp/exif/1.0/' exifEX:BodySerialNumber='C39X'/></rdf:RDF></x:xmpmeta>"

    static let layouts: [Layout] = [
        Layout(version: 0, offsetSize: 4, lengthSize: 4, baseOffsetSize: 0, indexSize: 0, method: 0),
        Layout(version: 0, offsetSize: 4, lengthSize: 4, baseOffsetSize: 4, indexSize: 0, method: 0, metaFirst: true),
        Layout(version: 1, offsetSize: 8, lengthSize: 8, baseOffsetSize: 8, indexSize: 4, method: 0),
        Layout(version: 1, offsetSize: 0, lengthSize: 4, baseOffsetSize: 4, indexSize: 0, method: 0, exifHeaderOffset: 0),
        Layout(version: 1, offsetSize: 4, lengthSize: 4, baseOffsetSize: 0, indexSize: 0, method: 1),
        Layout(version: 2, offsetSize: 4, lengthSize: 8, baseOffsetSize: 4, indexSize: 8, method: 1),
        Layout(version: 2, offsetSize: 8, lengthSize: 4, baseOffsetSize: 0, indexSize: 0, method: 0, metaFirst: true, splitExif: true),
    ]

    let scratch: ScratchDirectory

    init() throws {
        scratch = try ScratchDirectory()
    }

    @Test("Exif and XMP items are found", arguments: layouts)
    func findsItems(layout: Layout) throws {
        // An item with offset size 0 starts at the base offset, so only the Exif item can use it.
        let xmp = layout.offsetSize == 0 ? nil : Self.xmp
        let path = try scratch.write(Self.heif(exif: Self.tiff, xmp: xmp, layout: layout), as: "item.heic")
        let (metadata, format, _) = try PhotoGeotagReader.read(path: path)
        #expect(format == .heif)
        #expect(metadata.latitude == -1.5)
        #expect(metadata.longitude == 1.25)
        #expect(metadata.make == "Apple")
        #expect(metadata.model == "iPhone 15 Pro")
        #expect(metadata.cameraSerial == (xmp == nil ? nil : "C39X"))
    }

    @Test("a zero extent length means the rest of the idat box")
    func zeroLength() throws {
        let layout = Layout(version: 1, offsetSize: 4, lengthSize: 0, baseOffsetSize: 0, indexSize: 0, method: 1)
        let path = try scratch.write(Self.heif(exif: Self.tiff, xmp: nil, layout: layout), as: "rest.heic")
        #expect(try PhotoGeotagReader.read(path: path).0.latitude == -1.5)
    }

    @Test("broken item locations are reported")
    func brokenLocations() throws {
        let layout = Layout(version: 1, offsetSize: 4, lengthSize: 4, baseOffsetSize: 0, indexSize: 0, method: 0)
        var bytes = Self.heif(exif: Self.tiff, xmp: nil, layout: layout)
        // Point the Exif extent far beyond the file; iloc is the last box, ending in that extent's offset and length.
        let extentOffset = bytes.count - 8
        bytes.replaceSubrange(extentOffset..<(extentOffset + 4), with: be32(0x0100_0000))
        let error = try #require(readFailure(try scratch.write(bytes, as: "far.heic")))
        #expect(error.reason == "the Exif item starts at offset 16777216 of the file, which is outside it (size \(bytes.count))")

        let noIdat = Self.heif(exif: Self.tiff, xmp: nil, layout: Layout(version: 1, offsetSize: 4, lengthSize: 4, baseOffsetSize: 0, indexSize: 0, method: 1))
        let stripped = Self.renamingBox("idat", to: "free", in: noIdat)
        #expect(readFailure(try scratch.write(stripped, as: "noidat.heic"))?.reason == "the Exif item is stored in an 'idat' box, but there is none")

        var badSize = Self.heif(exif: Self.tiff, xmp: nil, layout: layout)
        let iloc = Self.find("iloc", in: badSize)
        badSize[iloc + 12] = 0x24  // offset size 2, which iloc does not allow
        #expect(readFailure(try scratch.write(badSize, as: "badsize.heic"))?.reason == "'iloc' box has field size 2; only 0, 4 and 8 are valid")

        var badHeader = Self.heif(exif: Self.tiff, xmp: nil, layout: layout)
        let mdat = Self.find("mdat", in: badHeader)
        badHeader.replaceSubrange((mdat + 8)..<(mdat + 12), with: be32(0x7000_0000))
        #expect(readFailure(try scratch.write(badHeader, as: "badheader.heic"))?.reason
            == "the Exif item's TIFF header offset 1879048192 points outside the item (size \(Self.tiff.count + 10))")
    }

    /// Offset of the size field of the first box of `type`.
    static func find(_ type: String, in bytes: [UInt8]) -> Int {
        let pattern = Array(type.utf8)
        return (4..<bytes.count).first { bytes[$0..<min($0 + 4, bytes.count)].elementsEqual(pattern) }! - 4
    }

    static func renamingBox(_ type: String, to newType: String, in bytes: [UInt8]) -> [UInt8] {
        var copy = bytes
        let at = find(type, in: bytes) + 4
        copy.replaceSubrange(at..<(at + 4), with: Array(newType.utf8))
        return copy
    }
}
