import CCrypto

/// SHA-256 from OpenSSL's libcrypto, for stable keys, versions and content hashes.
public enum Digest {
    public static func sha256(_ bytes: some Collection<UInt8>) -> [UInt8] {
        withSHA256(bytes) { Array($0) }
    }

    /// Lower-case hex of the digest, cut to `length` characters (at most 64), after `prefix`
    /// (a key's `photo:`): one string made.
    public static func sha256Hex(_ bytes: some Collection<UInt8>, length: Int = 64, prefix: StaticString = "") -> String {
        withSHA256(bytes) { hex($0, length: length, prefix: prefix) }
    }

    public static func sha256Hex(_ string: String, length: Int = 64, prefix: StaticString = "") -> String {
        sha256Hex(Array(string.utf8), length: length, prefix: prefix)
    }

    /// `body` of the digest, held on the stack: a version per item costs no allocation for it.
    private static func withSHA256<T>(_ bytes: some Collection<UInt8>, _ body: (UnsafeRawBufferPointer) -> T) -> T {
        var digest: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        withUnsafeMutableBytes(of: &digest) { out in
            let out = out.baseAddress!.assumingMemoryBound(to: UInt8.self)
            let ok = bytes.withContiguousStorageIfAvailable { buf in ccrypto_sha256(buf.baseAddress, buf.count, out) }
                ?? Array(bytes).withUnsafeBufferPointer { buf in ccrypto_sha256(buf.baseAddress, buf.count, out) }
            // Fails only without libcrypto.so.3 (a dependency of libcurl) or on allocation failure.
            precondition(ok == 1, "SHA-256 is unavailable: install libssl3")
        }
        return withUnsafeBytes(of: digest, body)
    }

    public static func hex(_ bytes: some Collection<UInt8>, length: Int = .max, prefix: StaticString = "") -> String {
        let count = prefix.utf8CodeUnitCount + min(length, 2 * bytes.count)
        return String(unsafeUninitializedCapacity: count) { out in
            var n = 0
            prefix.withUTF8Buffer { for byte in $0 { out[n] = byte; n += 1 } }
            for b in bytes where n < count {
                out[n] = hexDigits[Int(b >> 4)]; n += 1
                if n < count { out[n] = hexDigits[Int(b & 0xF)]; n += 1 }
            }
            return n
        }
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// Cryptographically random bytes (capture keys' UUIDs use the stdlib; this is for lock tokens
    /// and ids), from the stdlib's generator (getrandom(2)): a trace id must not load libcrypto.
    public static func randomBytes(_ count: Int) -> [UInt8] {
        var rng = SystemRandomNumberGenerator()
        var out: [UInt8] = []
        out.reserveCapacity(count + 8)
        while out.count < count { withUnsafeBytes(of: rng.next() as UInt64) { out += $0 } }
        return Array(out.prefix(count))
    }
}

/// SHA-256 over bytes given in parts: a file hashed while it is streamed. Owns its libcrypto context.
public final class StreamingDigest {
    private let context: UnsafeMutablePointer<ccrypto_sha256_ctx>

    public init() {
        guard let context = ccrypto_sha256_new() else { preconditionFailure("SHA-256 is unavailable: install libssl3") }
        self.context = context
    }

    deinit { ccrypto_sha256_free(context) }

    public func update(_ bytes: UnsafeRawBufferPointer) {
        guard bytes.count > 0 else { return }
        precondition(ccrypto_sha256_update(context, bytes.baseAddress, bytes.count) == 1, "SHA-256 update failed")
    }

    /// The digest as lower-case hex cut to `length`; the context is spent after this.
    public func finishHex(length: Int = 64) -> String {
        var out = [UInt8](repeating: 0, count: 32)
        precondition(ccrypto_sha256_final(context, &out) == 1, "SHA-256 final failed")
        return Digest.hex(out, length: length)
    }
}
