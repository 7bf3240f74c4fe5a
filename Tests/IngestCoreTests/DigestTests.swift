import Testing
@testable import IngestCore

/// Keys and versions already at the node are SHA-256 hex: the digest must never change, however
/// libcrypto is reached (FIPS 180-2's examples).
struct DigestTests {
    @Test func oneShotDigestsAreTheStandardOnes() {
        #expect(Digest.sha256Hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(Digest.sha256Hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(Digest.sha256Hex("abc", length: 16) == "ba7816bf8f01cfea")
    }

    @Test func aDigestInPartsEqualsTheOneShot() {
        let million = [UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)
        let streamed = StreamingDigest()
        for start in stride(from: 0, to: million.count, by: 65_537) {
            million[start..<min(start + 65_537, million.count)].withUnsafeBytes { streamed.update($0) }
        }
        let expected = "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"
        #expect(streamed.finishHex() == expected)
        #expect(Digest.sha256Hex(million) == expected)
    }
}
