@testable import Adapters

/// Movie headers: the sniffer's brand and leading-box checks, then the top-level walk, `moov`,
/// `udta`, `meta`/`keys`/`ilst`, `loci` and any XMP, as the reader does for MP4/MOV/3GP files.
enum QuickTimeHarness {
    static func run(_ bytes: [UInt8]) {
        _ = QuickTimeReader.isMovie(brands: ISOBMFFReader.brands(inHead: bytes))
        _ = QuickTimeReader.startsLikeMovie(bytes)
        _ = try? QuickTimeReader.metadata(in: PhotoInput.file(bytes))
        _ = MovieFields.iso6709(String(decoding: bytes.prefix(64), as: UTF8.self))
    }
}
