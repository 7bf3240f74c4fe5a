@testable import Adapters

/// JPEG segments (APP1 Exif and XMP, extended XMP), then the Exif and XMP decoders.
enum JPEGHarness {
    static func run(_ bytes: [UInt8]) { PhotoInput.decode(JPEGReader.blocks, bytes) }
}
