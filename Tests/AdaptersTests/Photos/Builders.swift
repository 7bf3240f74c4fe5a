import Foundation
@testable import Adapters

/// Builds TIFF streams byte by byte, so tests can express encodings and corruptions that
/// no tool will write: single decimal-degree rationals, zero denominators, bad offsets.
struct TIFFBuilder {
    enum Value: Sendable {
        /// ASCII written as given, followed by one NUL.
        case ascii(String)
        /// Raw bytes of type ASCII, no terminator added (for Latin-1, padding, embedded NULs).
        case asciiBytes([UInt8])
        case byte(UInt8)
        case short(UInt16)
        case long(UInt32)
        case rationals([(UInt32, UInt32)])
        case srationals([(Int32, Int32)])
        /// An entry written verbatim: the count and value/offset field are not checked.
        case raw(type: UInt16, count: UInt32, field: UInt32)
    }

    var bigEndian = false
    /// Bytes 2-3 of the header: 0x2A for TIFF, "RO" for ORF, "U\0" for RW2, 0x2B for BigTIFF.
    var magic: [UInt8]?
    /// Bytes between the 8-byte header and IFD0, as CR2 has.
    var headerGap: [UInt8] = []
    var ifd0: [(UInt16, Value)] = []
    var exif: [(UInt16, Value)] = []
    var gps: [(UInt16, Value)] = []

    func build() -> [UInt8] {
        var ifd0Entries = ifd0
        let ifd0Offset = 8 + headerGap.count
        let pointerCount = (exif.isEmpty ? 0 : 1) + (gps.isEmpty ? 0 : 1)
        let exifOffset = ifd0Offset + Self.size(entries: ifd0.count + pointerCount)
        let gpsOffset = exifOffset + (exif.isEmpty ? 0 : Self.size(entries: exif.count))
        let dataOffset = gpsOffset + (gps.isEmpty ? 0 : Self.size(entries: gps.count))
        if !exif.isEmpty { ifd0Entries.append((0x8769, .long(UInt32(exifOffset)))) }
        if !gps.isEmpty { ifd0Entries.append((0x8825, .long(UInt32(gpsOffset)))) }

        var out: [UInt8] = bigEndian ? [0x4D, 0x4D] : [0x49, 0x49]
        out += magic ?? u16(0x2A)
        out += u32(UInt32(ifd0Offset))
        out += headerGap
        var data: [UInt8] = []
        for directory in [ifd0Entries, exif, gps] where !directory.isEmpty {
            out += u16(UInt16(directory.count))
            for (tag, value) in directory.sorted(by: { $0.0 < $1.0 }) {
                out += u16(tag)
                let (type, count, bytes, field) = encode(value)
                out += u16(type) + u32(count)
                if let field {
                    out += u32(field)
                } else if bytes.count <= 4 {
                    out += bytes + [UInt8](repeating: 0, count: 4 - bytes.count)
                } else {
                    out += u32(UInt32(dataOffset + data.count))
                    data += bytes
                    if data.count % 2 == 1 { data.append(0) }
                }
            }
            out += u32(0)  // no next IFD
        }
        return out + data
    }

    private static func size(entries: Int) -> Int { 2 + 12 * entries + 4 }

    private func encode(_ value: Value) -> (type: UInt16, count: UInt32, bytes: [UInt8], field: UInt32?) {
        switch value {
        case .ascii(let text):
            let bytes = Array(text.utf8) + [0]
            return (2, UInt32(bytes.count), bytes, nil)
        case .asciiBytes(let bytes):
            return (2, UInt32(bytes.count), bytes, nil)
        case .byte(let byte):
            return (1, 1, [byte], nil)
        case .short(let value):
            return (3, 1, u16(value), nil)
        case .long(let value):
            return (4, 1, u32(value), nil)
        case .rationals(let values):
            return (5, UInt32(values.count), values.flatMap { u32($0.0) + u32($0.1) }, nil)
        case .srationals(let values):
            let bytes = values.flatMap { u32(UInt32(bitPattern: $0.0)) + u32(UInt32(bitPattern: $0.1)) }
            return (10, UInt32(values.count), bytes, nil)
        case .raw(let type, let count, let field):
            return (type, count, [], field)
        }
    }

    func u16(_ value: UInt16) -> [UInt8] {
        bigEndian ? [UInt8(value >> 8), UInt8(value & 0xFF)] : [UInt8(value & 0xFF), UInt8(value >> 8)]
    }

    func u32(_ value: UInt32) -> [UInt8] {
        let bytes = (0..<4).map { UInt8((value >> (8 * $0)) & 0xFF) }
        return bigEndian ? bytes.reversed() : bytes
    }
}

/// Big-endian integer bytes, as JPEG, PNG and ISO-BMFF store them.
func be16(_ value: Int) -> [UInt8] { [UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)] }
func be32(_ value: Int) -> [UInt8] { (0..<4).reversed().map { UInt8((value >> (8 * $0)) & 0xFF) } }
func be64(_ value: Int) -> [UInt8] { (0..<8).reversed().map { UInt8((value >> (8 * $0)) & 0xFF) } }
func le32(_ value: Int) -> [UInt8] { (0..<4).map { UInt8((value >> (8 * $0)) & 0xFF) } }

/// Minimal containers around Exif/XMP blocks. The image data is filler: the reader stops
/// before it (JPEG SOS) or skips it by length, so it never has to decode.
enum Containers {
    static func jpeg(exif: [UInt8]? = nil, xmp: String? = nil, segmentsBefore: [(UInt8, [UInt8])] = [], imageBytes: Int = 16) -> [UInt8] {
        var out: [UInt8] = [0xFF, 0xD8]
        for (marker, payload) in segmentsBefore { out += segment(marker, payload) }
        if let exif { out += segment(0xE1, Array("Exif\0\0".utf8) + exif) }
        if let xmp { out += segment(0xE1, Array("http://ns.adobe.com/xap/1.0/\0".utf8) + Array(xmp.utf8)) }
        out += segment(0xDA, [1, 1, 0, 0, 0x3F, 0])
        out += [UInt8](repeating: 0x55, count: imageBytes)
        return out + [0xFF, 0xD9]
    }

    static func segment(_ marker: UInt8, _ payload: [UInt8]) -> [UInt8] {
        [0xFF, marker] + be16(payload.count + 2) + payload
    }

    static func png(chunks: [(String, [UInt8])]) -> [UInt8] {
        var out: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        for (type, data) in chunks { out += pngChunk(type, data) }
        return out
    }

    static func pngChunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        be32(data.count) + Array(type.utf8) + data + [0, 0, 0, 0]
    }

    /// IHDR of a 1x1 8-bit grayscale image.
    static let pngHeader: (String, [UInt8]) = ("IHDR", be32(1) + be32(1) + [8, 0, 0, 0, 0])

    static func webp(chunks: [(String, [UInt8])]) -> [UInt8] {
        var body = Array("WEBP".utf8)
        for (type, data) in chunks {
            body += Array(type.utf8) + le32(data.count) + data
            if data.count % 2 == 1 { body.append(0) }
        }
        return Array("RIFF".utf8) + le32(body.count) + body
    }

    static func box(_ type: String, _ payload: [UInt8]) -> [UInt8] {
        be32(payload.count + 8) + Array(type.utf8) + payload
    }

    static func fullBox(_ type: String, version: UInt8, flags: Int = 0, _ payload: [UInt8]) -> [UInt8] {
        box(type, [version] + be32(flags).dropFirst() + payload)
    }

    static let ftypHEIC = box("ftyp", Array("heic".utf8) + be32(0) + Array("mif1heic".utf8))

    /// An `infe` v2 entry; `contentType` only for mime items.
    static func infe(id: Int, type: String, contentType: String? = nil) -> [UInt8] {
        var payload = be16(id) + be16(0) + Array(type.utf8) + [0]
        if let contentType { payload += Array(contentType.utf8) + [0] }
        return fullBox("infe", version: 2, payload)
    }
}

/// A scratch directory for one test, removed when the test's reference to it goes away.
final class ScratchDirectory {
    let path: String

    init() throws {
        path = FileManager.default.temporaryDirectory
            .appendingPathComponent("photometa-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }

    /// Writes `bytes` to `name` in this directory and returns the full path.
    func write(_ bytes: [UInt8], as name: String) throws -> String {
        let file = path + "/" + name
        try Data(bytes).write(to: URL(fileURLWithPath: file))
        return file
    }
}

/// The error `read(path:)` throws, or nil when it succeeds.
func readFailure(_ path: String) -> PhotoReadError? {
    do {
        _ = try PhotoGeotagReader.read(path: path)
        return nil
    } catch {
        return error
    }
}

/// A small deterministic generator (SplitMix64), so mutation tests replay exactly.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
