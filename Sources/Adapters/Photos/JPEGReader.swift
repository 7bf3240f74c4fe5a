/// Finds the Exif and XMP APP1 segments of a JPEG by walking its markers from SOI to SOS.
///
/// Everything after SOS is entropy-coded image data, so stopping there bounds the walk to
/// the header segments. Segment payloads are never read except the two APP1s wanted; other
/// segments (a 500 KB ICC profile, say) are skipped by offset.
enum JPEGReader {
    private static let exifSignature = Array("Exif\0".utf8)
    private static let xmpSignature = Array("http://ns.adobe.com/xap/1.0/\0".utf8)
    /// Header segments are a handful; thousands means a corrupt or hostile file.
    private static let maxSegments = 10_000

    static func blocks(in file: FileBytes) throws(PhotoReadError) -> MetadataBlocks {
        var blocks = MetadataBlocks()
        var offset = 2
        for _ in 0..<maxSegments {
            guard offset <= file.count - 2 else {
                throw PhotoReadError("JPEG ends at offset \(offset.hex) before its image data (truncated?)")
            }
            let markerBytes = try file.bytes(at: offset, count: 2)
            guard markerBytes.first == 0xFF else {
                throw PhotoReadError("expected a JPEG marker at offset \(offset.hex) but found byte \(Int(markerBytes[markerBytes.startIndex]).hex)")
            }
            let marker = markerBytes[markerBytes.startIndex + 1]
            switch marker {
            case 0xDA, 0xD9:  // SOS: image data follows; EOI: no image at all.
                return blocks
            case 0xFF:  // Fill byte before a marker.
                offset += 1
                continue
            case 0x01, 0xD0...0xD8:  // Markers without a length field.
                offset += 2
                continue
            default:
                break
            }
            guard offset <= file.count - 4 else {
                throw PhotoReadError("JPEG ends at offset \(offset.hex) inside a segment header (truncated?)")
            }
            let length = ByteOrder.big.u16(try file.bytes(at: offset + 2, count: 2), at: 0)
            guard length >= 2 else {
                throw PhotoReadError("JPEG segment 0xff\(String(marker, radix: 16)) at offset \(offset.hex) has invalid length \(length)")
            }
            let payload = offset + 4
            let payloadCount = length - 2
            guard payloadCount <= file.count - payload else {
                throw PhotoReadError("JPEG segment 0xff\(String(marker, radix: 16)) at offset \(offset.hex) (\(length) bytes) runs past the end of the file (size \(file.count))")
            }
            if marker == 0xE1 {
                try readAPP1(in: file, payload: payload, count: payloadCount, into: &blocks)
            }
            offset = payload + payloadCount
        }
        throw PhotoReadError("JPEG has more than \(maxSegments) segments before its image data")
    }

    /// Records the segment if it is the first Exif or XMP APP1 (the two share the marker).
    private static func readAPP1(in file: FileBytes, payload: Int, count: Int, into blocks: inout MetadataBlocks) throws(PhotoReadError) {
        let prefix = try file.bytes(at: payload, count: min(count, xmpSignature.count))
        if blocks.exif == nil, prefix.starts(with: exifSignature), count >= 6 {
            // "Exif\0" is followed by a pad byte (normally NUL), then the TIFF header.
            blocks.exif = try ByteRange(file, start: payload + 6, count: count - 6, name: "the Exif data")
        } else if blocks.xmp == nil, prefix.elementsEqual(xmpSignature) {
            blocks.xmp = try XMPReader.packet(in: file, at: payload + xmpSignature.count, count: count - xmpSignature.count)
        }
    }
}
