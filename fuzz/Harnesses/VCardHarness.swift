@testable import Adapters

/// A .vcf file: every card, any version, any charset.
enum VCardHarness {
    static func run(_ bytes: [UInt8]) { _ = VCardParser.parse(bytes) }
}
