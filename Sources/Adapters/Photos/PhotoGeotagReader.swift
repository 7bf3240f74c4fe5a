/// Reads location, capture time and camera identity from a photo, a video or an XMP sidecar.
///
/// The format is decided from the file's first bytes, not its name, because photos are
/// routinely misnamed (a PNG called .jpg, a HEIC renamed to .jpeg by a phone export).
/// Only the metadata bytes are read, by bounded offset reads through `BoundedFile`.
public enum PhotoGeotagReader {
    /// Read once up front; it covers the metadata of nearly every JPEG, HEIF and TIFF. What lies
    /// beyond it but within `nearStartSize` is read in one more go the first time it is needed;
    /// what lies further (an XMP packet after a large Exif thumbnail) costs a read of its own.
    /// Small, because every byte read up front is copied for every photo of a scan.
    static let headSize = 8 << 10
    static let nearStartSize = 16 << 10

    /// Reads the metadata of the file at `path` (relative to `folder` when given).
    ///
    /// Sniffs the format from the first bytes (not the extension), except `.xmp` sidecars by extension.
    /// A packet starting with `<?xpacket` or `<x:xmpmeta` is recognised as XMP whatever its name.
    /// - Returns: the metadata, the detected format, and how many bytes were read from disk.
    /// - Throws: `PhotoReadError` with a one-line reason for unreadable, unrecognised or corrupt files.
    public static func read(path: String) throws(PhotoReadError) -> (PhotoMetadata, PhotoFormat, bytesRead: Int) {
        try read(path: path, in: nil)
    }

    /// - Parameter statedSize: the size a folder walk's `stat` of this regular file gave (see ``BoundedFile``).
    static func read(path: String, in folder: OpenFolder?, statedSize: Int? = nil) throws(PhotoReadError) -> (PhotoMetadata, PhotoFormat, bytesRead: Int) {
        let file = try BoundedFile(path: path, in: folder, statedSize: statedSize)
        guard file.size > 0 else { throw PhotoReadError("file is empty") }
        let bytes = try FileBytes(file: file, headSize: headSize, nearStart: nearStartSize)
        let (metadata, format) = try read(bytes, sidecar: isSidecar(path))
        return (metadata, format, file.bytesRead)
    }

    /// A photo of `size` bytes known by its first bytes only (a zip entry's head).
    static func read(head: [UInt8], size: Int) throws(PhotoReadError) -> PhotoMetadata {
        guard !head.isEmpty else { throw PhotoReadError("file is empty") }
        return try read(FileBytes(head: head, size: size), sidecar: false).0
    }

    private static func read(_ bytes: FileBytes, sidecar: Bool) throws(PhotoReadError) -> (PhotoMetadata, PhotoFormat) {
        let format = sidecar ? .xmp : try sniff(bytes.head)
        let blocks: MetadataBlocks
        switch format {
        case .jpeg: blocks = try JPEGReader.blocks(in: bytes)
        case .png: blocks = try PNGReader.blocks(in: bytes)
        case .webp: blocks = try WebPReader.blocks(in: bytes)
        case .heif: blocks = try ISOBMFFReader.blocks(in: bytes)
        case .tiff: blocks = MetadataBlocks(exif: bytes)
        case .xmp: blocks = MetadataBlocks(xmp: try sidecarPacket(in: bytes))
        case .movie: return (try QuickTimeReader.metadata(in: bytes), format)
        }
        return (try blocks.metadata(), format)
    }

    /// Combines a photo's own metadata with its sidecar's.
    ///
    /// The sidecar's GPS fields (latitude/longitude, altitude, horizontal error) win, because
    /// a sidecar is where a user's corrected or added geotag lives; every other sidecar
    /// field only fills a gap, because the camera's own record is the better witness.
    public static func merge(file: PhotoMetadata, sidecar: PhotoMetadata) -> PhotoMetadata {
        var merged = file.fillingGaps(from: sidecar)
        if sidecar.latitude != nil, sidecar.longitude != nil {
            merged.latitude = sidecar.latitude
            merged.longitude = sidecar.longitude
        }
        merged.altitudeM = sidecar.altitudeM ?? file.altitudeM
        merged.horizontalErrorM = sidecar.horizontalErrorM ?? file.horizontalErrorM
        return merged
    }

    /// By its name's extension, any case: no lower-cased copy of every photo's name.
    private static func isSidecar(_ path: String) -> Bool { path.hasExtension("xmp") }

    /// A whole XMP file, which (unlike a photo) is all metadata.
    private static func sidecarPacket(in file: FileBytes) throws(PhotoReadError) -> [UInt8] {
        guard file.count <= XMPReader.maxPacketSize else {
            throw PhotoReadError("XMP sidecar of \(file.count) bytes exceeds the \(XMPReader.maxPacketSize >> 20) MiB limit")
        }
        let packet = Array(try file.bytes(at: 0, count: file.count))
        guard XMPReader.looksLikeXMP(packet) else {
            throw PhotoReadError("not an XMP sidecar: no RDF namespace found")
        }
        return packet
    }

    /// The format implied by the leading magic bytes.
    static func sniff(_ head: [UInt8]) throws(PhotoReadError) -> PhotoFormat {
        func starts(_ magic: [UInt8], at offset: Int = 0) -> Bool {
            head.count >= offset + magic.count && head[offset..<(offset + magic.count)].elementsEqual(magic)
        }
        if starts(Magic.jpeg) { return .jpeg }
        if starts(Magic.png) { return .png }
        if Magic.tiff.contains(where: { starts($0) }) { return .tiff }
        if starts(Magic.riff), starts(Magic.webp, at: 8) { return .webp }
        // A bare XMP packet, e.g. a sidecar saved without its extension.
        let text = head.starts(with: Magic.byteOrderMark) ? head.dropFirst(3) : head[...]
        if text.starts(with: Magic.xpacket) || text.starts(with: Magic.xmpmeta) { return .xmp }
        if starts(Magic.fileType, at: 4) {
            let brands = ISOBMFFReader.brands(inHead: head)
            guard !brands.isEmpty else {
                throw PhotoReadError("ISO-BMFF file is too short for its 'ftyp' box (truncated?)")
            }
            if ISOBMFFReader.isImage(brands: brands) { return .heif }
            guard QuickTimeReader.isMovie(brands: brands) else {
                throw PhotoReadError("ISO-BMFF file with brands \(brands.map(\.description).joined(separator: ", ")) is neither a HEIF/AVIF image nor an MP4/QuickTime movie")
            }
            return .movie
        }
        if QuickTimeReader.startsLikeMovie(head) { return .movie }
        let shown = head.prefix(8).map { byte in (byte < 16 ? "0" : "") + String(byte, radix: 16) }
        throw PhotoReadError("not a recognised photo format (starts with \(shown.joined(separator: " ")))")
    }

    /// The leading bytes of each format, made once rather than per file.
    private enum Magic {
        static let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF]
        static let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        // Classic TIFF, BigTIFF (rejected with a reason by TIFFReader), ORF and RW2 variants;
        // CR2 and DNG use the plain TIFF header.
        static let tiff: [[UInt8]] = ["II*\0", "MM\0*", "II+\0", "MM\0+", "IIRO", "IIRS", "MMOR", "IIU\0"].map { Array($0.utf8) }
        static let riff = Array("RIFF".utf8), webp = Array("WEBP".utf8), fileType = Array("ftyp".utf8)
        static let byteOrderMark: [UInt8] = [0xEF, 0xBB, 0xBF]
        static let xpacket = Array("<?xpacket".utf8), xmpmeta = Array("<x:xmpmeta".utf8)
    }
}
