import CCrypto

/// SHA-256 from OpenSSL's libcrypto, for stable keys, versions and content hashes.
public enum Digest {
    /// Fetched once: OpenSSL 3 otherwise looks the algorithm up on every call, which cost more
    /// than hashing a photo item.
    nonisolated(unsafe) private static let sha256Algorithm = EVP_MD_fetch(nil, "SHA256", nil) ?? EVP_sha256()

    public static func sha256(_ bytes: some Collection<UInt8>) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        let md = sha256Algorithm
        let ok = bytes.withContiguousStorageIfAvailable { buf in
            EVP_Digest(buf.baseAddress, buf.count, &out, &length, md, nil)
        } ?? Array(bytes).withUnsafeBufferPointer { buf in
            EVP_Digest(buf.baseAddress, buf.count, &out, &length, md, nil)
        }
        precondition(ok == 1, "EVP_Digest(sha256) failed")   // only fails on allocation failure
        return out
    }

    /// Lower-case hex of the digest, cut to `length` characters (at most 64).
    public static func sha256Hex(_ bytes: some Collection<UInt8>, length: Int = 64) -> String {
        hex(sha256(bytes), length: length)
    }

    public static func sha256Hex(_ string: String, length: Int = 64) -> String {
        sha256Hex(Array(string.utf8), length: length)
    }

    public static func hex(_ bytes: some Sequence<UInt8>, length: Int = .max) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        for b in bytes {
            out.append(digits[Int(b >> 4)]); out.append(digits[Int(b & 0xF)])
            if out.count >= length { break }
        }
        return String(decoding: out.prefix(length), as: UTF8.self)
    }

    /// Cryptographically random bytes (capture keys' UUIDs use the stdlib; this is for lock tokens and ids).
    public static func randomBytes(_ count: Int) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: count)
        if RAND_bytes(&out, Int32(count)) != 1 {
            var rng = SystemRandomNumberGenerator()
            for i in out.indices { out[i] = rng.next() }
        }
        return out
    }
}
