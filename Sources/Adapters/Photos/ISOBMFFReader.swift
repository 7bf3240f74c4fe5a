/// Finds the Exif item and the XMP item of a HEIF/HEIC/AVIF file.
///
/// In ISO-BMFF images metadata are items like the picture itself: the `meta` box lists
/// them in `iinf` (type "Exif", or "mime" with content type application/rdf+xml) and
/// says where their bytes are in `iloc`, either in the file (construction method 0) or
/// inside the `idat` box (method 1). Only those boxes are read; `mdat` is skipped.
enum ISOBMFFReader {
    /// Brands (major or compatible) that mark a still image in the HEIF family.
    private static let imageBrands: Set<FourCC> = [
        "mif1", "mif2", "msf1", "miaf", "heic", "heix", "heim", "heis", "hevc", "hevx", "heif",
        "avif", "avis", "avio", "MiHA", "MiHB", "MiHE",
    ]
    /// Boxes per level; real files have a few, and each one costs a header read.
    private static let maxBoxes = 1000
    /// iinf/iloc are read whole; tiled images reach tens of KiB, never megabytes.
    private static let maxIndexBoxSize = 1 << 20
    /// Items split into several extents are copied together; metadata items are small.
    private static let maxJoinedItemSize = 2 << 20

    /// The brands listed in the leading `ftyp` box of `head`.
    static func brands(inHead head: [UInt8]) -> [FourCC] {
        guard head.count >= 16 else { return [] }
        let size = min(ByteOrder.big.u32(head[...], at: 0), head.count)
        var brands = [FourCC(head[8..<12])]
        var offset = 16
        while offset + 4 <= size {
            brands.append(FourCC(head[offset..<(offset + 4)]))
            offset += 4
        }
        return brands
    }

    static func isImage(brands: [FourCC]) -> Bool {
        brands.contains(where: imageBrands.contains)
    }

    static func blocks(in file: FileBytes) throws(PhotoReadError) -> MetadataBlocks {
        let topLevel = try boxes(in: file, from: 0, to: file.count, parent: "the file")
        guard let meta = topLevel.first(where: { $0.type == "meta" }) else {
            throw PhotoReadError("HEIF file has no 'meta' box")
        }
        // meta is a FullBox: 4 bytes of version and flags precede its children.
        let children = try boxes(in: file, from: meta.contentStart + 4, to: meta.end, parent: "the 'meta' box")
        guard let iinf = children.first(where: { $0.type == "iinf" }),
              let iloc = children.first(where: { $0.type == "iloc" }) else { return MetadataBlocks() }

        let items = try itemInfo(try content(of: iinf, in: file))
        var wanted: Set<Int> = []
        if let exif = items.exif { wanted.insert(exif) }
        if let xmp = items.xmp { wanted.insert(xmp) }
        let locations = try itemLocations(try content(of: iloc, in: file), wanted: wanted)
        let idat = children.first(where: { $0.type == "idat" })

        var blocks = MetadataBlocks()
        if let id = items.exif, let location = locations[id],
           let item = try itemBytes(location, in: file, idat: idat, name: "the Exif item") {
            blocks.exif = try exifTIFF(in: item)
        }
        if let id = items.xmp, let location = locations[id],
           let item = try itemBytes(location, in: file, idat: idat, name: "the XMP item") {
            blocks.xmp = try XMPReader.packet(in: item, at: 0, count: item.count)
        }
        return blocks
    }

    // MARK: Boxes

    /// A box's extent in its source; `contentStart` is past the size, type and any largesize.
    struct Box {
        /// `©xyz` and ilst's key indexes are not printable: a number, not text.
        let type: FourCC
        let contentStart: Int
        let end: Int
    }

    /// The sibling boxes filling `start..<end` of `source`.
    static func boxes(in source: any ByteSource, from start: Int, to end: Int, parent: String) throws(PhotoReadError) -> [Box] {
        var result: [Box] = []
        var offset = start
        while offset < end {
            guard result.count < maxBoxes else {
                throw PhotoReadError("more than \(maxBoxes) boxes in \(parent)")
            }
            let box = try box(in: source, at: offset, end: end, parent: parent)
            result.append(box)
            offset = box.end
        }
        return result
    }

    /// The box whose header is at `offset`, checked to end by `end`; a 64-bit largesize is read too.
    static func box(in source: any ByteSource, at offset: Int, end: Int, parent: String) throws(PhotoReadError) -> Box {
        guard offset <= end - 8 else {
            throw PhotoReadError("\(parent) ends at offset \(offset.hex) inside a box header (truncated?)")
        }
        let header = try source.bytes(at: offset, count: 8)
        let type = FourCC(header.dropFirst(4))
        var size = ByteOrder.big.u32(header, at: 0)
        var contentStart = offset + 8
        if size == 1 {
            guard offset <= end - 16 else {
                throw PhotoReadError("box '\(type)' at offset \(offset.hex) is missing its 64-bit size (truncated?)")
            }
            let large = ByteOrder.big.uint(try source.bytes(at: offset + 8, count: 8), at: 0, width: 8)
            size = large > UInt64(end) ? end + 1 : Int(large)  // anything past `end` is rejected below
            contentStart += 8
        } else if size == 0 {
            size = end - offset  // "extends to the end of the enclosing box or file"
        }
        guard size >= contentStart - offset else {
            throw PhotoReadError("box '\(type)' at offset \(offset.hex) has invalid size \(size)")
        }
        guard size <= end - offset else {
            throw PhotoReadError("box '\(type)' at offset \(offset.hex) (\(size) bytes) runs past the end of \(parent) (ends at \(end.hex))")
        }
        return Box(type: type, contentStart: contentStart, end: offset + size)
    }

    /// A small index box's content, read whole so that it can be parsed with a cursor.
    private static func content(of box: Box, in file: FileBytes) throws(PhotoReadError) -> ArraySlice<UInt8> {
        let count = box.end - box.contentStart
        guard count <= maxIndexBoxSize else {
            throw PhotoReadError("'\(box.type)' box of \(count) bytes exceeds the \(maxIndexBoxSize >> 20) MiB limit")
        }
        return try file.bytes(at: box.contentStart, count: count)
    }

    // MARK: Item information

    /// IDs of the first Exif item and the first XMP item listed in `iinf`.
    private static func itemInfo(_ iinf: ArraySlice<UInt8>) throws(PhotoReadError) -> (exif: Int?, xmp: Int?) {
        var cursor = ByteCursor(iinf, name: "'iinf' box")
        let version = try cursor.u8()
        try cursor.skip(3)
        _ = try version == 0 ? cursor.u16() : cursor.u32()  // entry count; the boxes themselves are authoritative
        let entries = MemoryBytes(storage: Array(iinf), name: "the 'iinf' box")
        var exif: Int?
        var xmp: Int?
        for box in try boxes(in: entries, from: cursor.position, to: entries.count, parent: "the 'iinf' box") where box.type == "infe" {
            let entry = try itemInfoEntry(try entries.bytes(at: box.contentStart, count: box.end - box.contentStart))
            if entry.type == "Exif", exif == nil { exif = entry.id }
            if entry.contentType == "application/rdf+xml", xmp == nil { xmp = entry.id }
        }
        return (exif, xmp)
    }

    /// One `infe`: versions 2 and 3 carry an item type; 0 and 1 only a content type.
    private static func itemInfoEntry(_ infe: ArraySlice<UInt8>) throws(PhotoReadError) -> (id: Int, type: FourCC?, contentType: String?) {
        var cursor = ByteCursor(infe, name: "'infe' box")
        let version = try cursor.u8()
        try cursor.skip(3)
        if version >= 2 {
            let id = try version == 2 ? cursor.u16() : cursor.u32()
            try cursor.skip(2)  // protection index
            let type = try cursor.fourCC()
            _ = cursor.cString()  // item name
            return (id, type, type == "mime" ? cursor.cString() : nil)
        }
        let id = try cursor.u16()
        try cursor.skip(2)
        _ = cursor.cString()
        return (id, nil, cursor.cString())
    }

    // MARK: Item locations

    /// Where an item's bytes are: relative to the file (method 0) or the idat content (method 1).
    struct ItemLocation {
        let constructionMethod: Int
        let baseOffset: UInt64
        let extents: [(offset: UInt64, length: UInt64)]
    }

    /// Parses `iloc` versions 0–2 with 0/4/8-byte fields, keeping only the `wanted` items.
    private static func itemLocations(_ iloc: ArraySlice<UInt8>, wanted: Set<Int>) throws(PhotoReadError) -> [Int: ItemLocation] {
        var cursor = ByteCursor(iloc, name: "'iloc' box")
        let version = try cursor.u8()
        try cursor.skip(3)
        guard version <= 2 else { throw PhotoReadError("'iloc' box version \(version) is not supported") }
        let sizes = try cursor.u8()
        let moreSizes = try cursor.u8()
        let offsetSize = sizes >> 4, lengthSize = sizes & 0xF
        let baseOffsetSize = moreSizes >> 4, indexSize = version >= 1 ? moreSizes & 0xF : 0
        for size in [offsetSize, lengthSize, baseOffsetSize, indexSize] where ![0, 4, 8].contains(size) {
            throw PhotoReadError("'iloc' box has field size \(size); only 0, 4 and 8 are valid")
        }
        let itemCount = try version < 2 ? cursor.u16() : cursor.u32()
        var locations: [Int: ItemLocation] = [:]
        for _ in 0..<itemCount {
            let id = try version < 2 ? cursor.u16() : cursor.u32()
            let constructionMethod = try version >= 1 ? cursor.u16() & 0xF : 0
            let dataReference = try cursor.u16()
            let baseOffset = try cursor.uint(width: baseOffsetSize)
            let extentCount = try cursor.u16()
            var extents: [(offset: UInt64, length: UInt64)] = []
            for _ in 0..<extentCount {
                try cursor.skip(indexSize)
                let offset = try cursor.uint(width: offsetSize)
                let length = try cursor.uint(width: lengthSize)
                extents.append((offset, length))
            }
            // A non-zero data reference points into another file, which is not ours to read.
            if wanted.contains(id), locations[id] == nil, dataReference == 0, !extents.isEmpty {
                locations[id] = ItemLocation(constructionMethod: constructionMethod, baseOffset: baseOffset, extents: extents)
            }
        }
        return locations
    }

    /// The item's bytes as a source: a window onto the file for one extent, a copy for several.
    /// Method 2 (bytes built from other items) is not used for metadata and yields nil.
    private static func itemBytes(_ location: ItemLocation, in file: FileBytes, idat: Box?, name: String) throws(PhotoReadError) -> (any ByteSource)? {
        let origin: Int, limit: Int, container: String
        switch location.constructionMethod {
        case 0:
            (origin, limit, container) = (0, file.count, "the file")
        case 1:
            guard let idat else { throw PhotoReadError("\(name) is stored in an 'idat' box, but there is none") }
            (origin, limit, container) = (idat.contentStart, idat.end, "the 'idat' box")
        default:
            return nil
        }
        var ranges: [(start: Int, count: Int)] = []
        for extent in location.extents {
            let relative = location.baseOffset.addingReportingOverflow(extent.offset)
            guard !relative.overflow, relative.partialValue < UInt64(limit - origin) else {
                throw PhotoReadError("\(name) starts at offset \(relative.partialValue) of \(container), which is outside it (size \(limit - origin))")
            }
            let start = origin + Int(relative.partialValue)
            // A zero length means "to the end of the container".
            let count = extent.length == 0 ? limit - start : Int(clamping: extent.length)
            guard count <= limit - start else {
                throw PhotoReadError("\(name) at offset \(start.hex) (\(count) bytes) runs past the end of \(container) (size \(limit - origin))")
            }
            ranges.append((start, count))
        }
        if ranges.count == 1 {
            return try ByteRange(file, start: ranges[0].start, count: ranges[0].count, name: name)
        }
        let total = ranges.reduce(0) { $0 + $1.count }
        guard total <= maxJoinedItemSize else {
            throw PhotoReadError("\(name) of \(total) bytes in \(ranges.count) extents exceeds the \(maxJoinedItemSize >> 20) MiB limit")
        }
        var joined: [UInt8] = []
        for range in ranges {
            joined += try file.bytes(at: range.start, count: range.count)
        }
        return MemoryBytes(storage: joined, name: name)
    }

    /// The TIFF stream inside an Exif item, which begins with a 4-byte big-endian offset
    /// from the end of that field to the TIFF header (usually 6, skipping "Exif\0\0").
    private static func exifTIFF(in item: any ByteSource) throws(PhotoReadError) -> ByteRange {
        guard item.count >= 4 else {
            throw PhotoReadError("the Exif item is only \(item.count) bytes, too short for its header offset")
        }
        let headerOffset = ByteOrder.big.u32(try item.bytes(at: 0, count: 4), at: 0)
        guard headerOffset <= item.count - 4 else {
            throw PhotoReadError("the Exif item's TIFF header offset \(headerOffset) points outside the item (size \(item.count))")
        }
        return try ByteRange(item, start: 4 + headerOffset, count: item.count - 4 - headerOffset, name: "the Exif data")
    }
}
