/// Byte order of multi-byte integers: TIFF declares its own in the header,
/// ISO-BMFF and PNG are big-endian, RIFF (WebP) is little-endian.
enum ByteOrder: Sendable {
    case big, little

    /// The unsigned integer of `width` bytes (0...8) at `index` positions into `bytes`.
    /// Callers pass slices they have already bounds-checked.
    func uint(_ bytes: ArraySlice<UInt8>, at index: Int, width: Int) -> UInt64 {
        var value: UInt64 = 0
        for k in 0..<width {
            let position = self == .big ? k : width - 1 - k
            value = value << 8 | UInt64(bytes[bytes.startIndex + index + position])
        }
        return value
    }

    func u16(_ bytes: ArraySlice<UInt8>, at index: Int) -> Int {
        Int(uint(bytes, at: index, width: 2))
    }

    func u32(_ bytes: ArraySlice<UInt8>, at index: Int) -> Int {
        Int(uint(bytes, at: index, width: 4))
    }
}

/// A four-character code (box type, chunk type, brand): its four bytes as one big-endian number,
/// compared as that, and made text only for a message, with unprintable bytes shown as "?" so
/// that a corrupt file cannot put control characters in an error.
struct FourCC: Hashable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
    let code: UInt32

    init(code: UInt32) { self.code = code }

    /// The four bytes at the start of `bytes` (which has at least four).
    init(_ bytes: ArraySlice<UInt8>) { code = UInt32(ByteOrder.big.u32(bytes, at: 0)) }

    /// A code spelled in four ASCII characters, as the specs name them (`"moov"`).
    init(stringLiteral text: StaticString) {
        precondition(text.utf8CodeUnitCount == 4, "a four-character code has four ASCII characters")
        code = text.withUTF8Buffer { $0.reduce(0) { $0 << 8 | UInt32($1) } }
    }

    var description: String {
        String(String.UnicodeScalarView((0..<4).reversed().map { shift -> Unicode.Scalar in
            let byte = UInt8(truncatingIfNeeded: code >> (8 * shift))
            return (0x20...0x7E).contains(byte) ? Unicode.Scalar(byte) : "?"
        }))
    }
}

extension StringProtocol {
    /// The text without leading and trailing whitespace (Foundation-free `trimmingCharacters`).
    /// Exif strings are ASCII, so this looks at bytes: `Character.isWhitespace` cost more than
    /// the rest of a photo's parse.
    var trimmed: String { String(decoding: utf8.trimmingBlanks, as: UTF8.self) }

    /// Whether the name ends in `.` and `ext` (lower-case ASCII letters), in any case, after a
    /// byte of its own: told on the bytes, as every file of every re-scan is.
    func hasExtension(_ ext: StaticString) -> Bool {
        let tail = utf8.suffix(ext.utf8CodeUnitCount + 1)
        return utf8.count > ext.utf8CodeUnitCount + 1 && tail.first == UInt8(ascii: ".")
            && ext.withUTF8Buffer { zip(tail.dropFirst(), $0).allSatisfy { $0 | 0x20 == $1 } }
    }
}

extension Collection<UInt8> {
    /// Without the ASCII blanks (space, tab, line breaks) at either end.
    var trimmingBlanks: SubSequence {
        func blank(_ b: UInt8) -> Bool { b == 0x20 || (0x09...0x0D).contains(b) }
        guard let first = firstIndex(where: { !blank($0) }) else { return self[endIndex...] }
        var end = index(after: first)
        var i = end
        while i != endIndex {
            let next = index(after: i)
            if !blank(self[i]) { end = next }
            i = next
        }
        return self[first..<end]
    }
}
