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

/// A four-character code (box type, chunk type, brand) as text, with unprintable
/// bytes shown as "?" so that a corrupt file cannot put control characters in an error.
func fourCC(_ bytes: ArraySlice<UInt8>) -> String {
    String(String.UnicodeScalarView(bytes.map { (0x20...0x7E).contains($0) ? Unicode.Scalar($0) : "?" }))
}

extension StringProtocol {
    /// The text without leading and trailing whitespace (Foundation-free `trimmingCharacters`).
    /// Exif strings are ASCII, so this looks at bytes: `Character.isWhitespace` cost more than
    /// the rest of a photo's parse.
    var trimmed: String { String(decoding: utf8.trimmingBlanks, as: UTF8.self) }
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
