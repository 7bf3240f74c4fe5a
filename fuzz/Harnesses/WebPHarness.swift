@testable import Adapters

/// WebP RIFF chunks (EXIF, XMP), then the Exif and XMP decoders.
enum WebPHarness {
    static func run(_ bytes: [UInt8]) { PhotoInput.decode(WebPReader.blocks, bytes) }
}
