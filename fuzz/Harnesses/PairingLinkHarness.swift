import IngestCore

/// The `hearthloom://pair?url=…&pat=…` link a user pastes, then the node URL inside it.
enum PairingLinkHarness {
    static func run(_ bytes: [UInt8]) {
        guard let link = try? PairingLink(String(decoding: bytes, as: UTF8.self)) else { return }
        _ = try? NodeURL(link.url)
    }
}
