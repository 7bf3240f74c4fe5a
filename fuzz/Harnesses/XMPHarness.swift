@testable import Adapters

/// The XMP packet decoder, as for a sidecar or a packet embedded in a container.
enum XMPHarness {
    static func run(_ bytes: [UInt8]) {
        _ = XMPReader.looksLikeXMP(bytes)
        _ = XMPReader.metadata(from: bytes)
    }
}
