@testable import Adapters

/// PNG chunks (eXIf, iTXt XMP, zTXt/tEXt raw profiles), then the Exif and XMP decoders.
enum PNGHarness {
    static func run(_ bytes: [UInt8]) { PhotoInput.decode(PNGReader.blocks, bytes) }
}
