@testable import Adapters

/// The TIFF/Exif walker on its own, as for an Exif block or a raw file (TIFF, DNG, ORF, RW2).
enum TIFFHarness {
    static func run(_ bytes: [UInt8]) {
        _ = try? TIFFReader.metadata(from: MemoryBytes(storage: bytes, name: "the Exif data"))
    }
}
