/// Finds the eXIf chunk and the XMP iTXt chunk of a PNG by walking chunk headers.
///
/// Only those two payloads are read; every other chunk, IDAT included, is skipped by its
/// length. eXIf is allowed after IDAT by some writers, so the walk goes on to IEND, which
/// costs just the 8-byte header of each remaining chunk.
enum PNGReader {
    private static let xmpKeyword = Array("XML:com.adobe.xmp".utf8)

    static func blocks(in file: FileBytes) throws(PhotoReadError) -> MetadataBlocks {
        var blocks = MetadataBlocks()
        var offset = 8
        while blocks.exif == nil || blocks.xmp == nil {
            guard offset <= file.count - 8 else {
                throw PhotoReadError("PNG ends at offset \(offset.hex) without an IEND chunk (truncated?)")
            }
            let header = try file.bytes(at: offset, count: 8)
            let length = ByteOrder.big.u32(header, at: 0)
            let type = FourCC(header.dropFirst(4))
            let data = offset + 8
            guard length <= 0x7FFF_FFFF, length <= file.count - data else {
                throw PhotoReadError("PNG chunk '\(type)' at offset \(offset.hex) (\(length) bytes) runs past the end of the file (size \(file.count))")
            }
            switch type {
            case "IEND":
                return blocks
            case "eXIf" where blocks.exif == nil:
                blocks.exif = try ByteRange(file, start: data, count: length, name: "the eXIf chunk")
            case "iTXt" where blocks.xmp == nil:
                blocks.xmp = try xmpPacket(in: file, at: data, count: length)
            default:
                break
            }
            offset = data + length + 4  // + CRC
        }
        return blocks
    }

    /// The text of an iTXt chunk whose keyword is XML:com.adobe.xmp, if stored uncompressed.
    ///
    /// Layout: keyword NUL, compression flag, method, language NUL, translated keyword NUL, text.
    /// Compressed XMP would need zlib, which this Foundation- and library-free reader avoids;
    /// writers leave XMP uncompressed so that it stays findable by scanning.
    private static func xmpPacket(in file: FileBytes, at offset: Int, count: Int) throws(PhotoReadError) -> [UInt8]? {
        let keywordLength = xmpKeyword.count + 1
        guard count > keywordLength + 2,
              try file.bytes(at: offset, count: keywordLength).elementsEqual(xmpKeyword + [0]),
              let chunk = try XMPReader.packet(in: file, at: offset, count: count) else { return nil }
        guard chunk[keywordLength] == 0 else { return nil }
        var cursor = ByteCursor(chunk[(keywordLength + 2)...], name: "iTXt chunk")
        _ = cursor.cString()  // language tag
        _ = cursor.cString()  // translated keyword
        return Array(chunk.suffix(cursor.remaining))
    }
}
