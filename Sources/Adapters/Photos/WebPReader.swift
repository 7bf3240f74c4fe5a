/// Finds the EXIF and "XMP " chunks of a WebP file by walking its RIFF chunks.
///
/// Chunk payloads other than those two are skipped by length; both live in the extended
/// (VP8X) layout, usually after the image data, so the walk covers the whole RIFF but
/// reads only 8-byte headers along the way.
enum WebPReader {
    private static let exifPrefix = Array("Exif\0\0".utf8)

    static func blocks(in file: FileBytes) throws(PhotoReadError) -> MetadataBlocks {
        let riffSize = ByteOrder.little.u32(try file.bytes(at: 4, count: 4), at: 0)
        guard riffSize <= file.count - 8 else {
            throw PhotoReadError("RIFF header declares \(riffSize + 8) bytes but the file has \(file.count) (truncated?)")
        }
        let end = 8 + riffSize
        var blocks = MetadataBlocks()
        var offset = 12
        while offset <= end - 8 {
            let header = try file.bytes(at: offset, count: 8)
            let type = FourCC(header.prefix(4))
            let length = ByteOrder.little.u32(header, at: 4)
            let data = offset + 8
            guard length <= end - data else {
                throw PhotoReadError("WebP chunk '\(type)' at offset \(offset.hex) (\(length) bytes) runs past the end of the RIFF data (size \(end))")
            }
            switch type {
            case "EXIF" where blocks.exif == nil:
                // The WebP spec says raw TIFF, but several writers keep JPEG's "Exif\0\0" prefix.
                let prefix = try file.bytes(at: data, count: min(length, 6))
                let skip = prefix.elementsEqual(exifPrefix) ? 6 : 0
                blocks.exif = try ByteRange(file, start: data + skip, count: length - skip, name: "the EXIF chunk")
            case "XMP " where blocks.xmp == nil:
                blocks.xmp = try XMPReader.packet(in: file, at: data, count: length)
            default:
                break
            }
            offset = data + length + (length & 1)  // chunks are padded to even sizes
        }
        return blocks
    }
}
