@testable import Adapters

/// HEIF/AVIF boxes: the ftyp brands the sniffer reads, then meta/iinf/iloc and the Exif item.
enum ISOBMFFHarness {
    static func run(_ bytes: [UInt8]) {
        _ = ISOBMFFReader.isImage(brands: ISOBMFFReader.brands(inHead: bytes))
        PhotoInput.decode(ISOBMFFReader.blocks, bytes)
    }
}
