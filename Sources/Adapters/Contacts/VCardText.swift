/// Byte-level helpers for vCard values: quoted-printable, character sets, backslash escapes and
/// the `;`/`,` structure of N, ADR, ORG, NICKNAME and CATEGORIES.
enum VCardText {
    /// The character set a value's bytes are in.
    enum Charset: Sendable, Equatable {
        case utf8
        case latin1
        case windows1252
        /// vCard 2.1 without CHARSET: UTF-8 when the bytes are valid UTF-8, else Windows-1252
        /// (2.1 predates UTF-8 as a default, and Outlook and older phones write their code page).
        case utf8OrWindows1252

        /// The charset a `CHARSET=` parameter names; nil for one this reader does not know.
        init?(parameter name: String) {
            switch name.uppercased() {
            case "UTF-8", "UTF8", "US-ASCII", "ASCII": self = .utf8
            case "ISO-8859-1", "ISO8859-1", "LATIN1", "ISO_8859-1": self = .latin1
            case "WINDOWS-1252", "CP1252", "CP-1252": self = .windows1252
            default: return nil
            }
        }
    }

    static func equalsIgnoringCase(_ bytes: ArraySlice<UInt8>, _ upper: [UInt8]) -> Bool {
        guard bytes.count == upper.count else { return false }
        var j = 0
        for b in bytes {
            let folded = b >= 0x61 && b <= 0x7A ? b - 0x20 : b
            if folded != upper[j] { return false }
            j += 1
        }
        return true
    }

    /// `=XX` decoded; soft line breaks were already joined by ``VCardLineReader``. A `=` not
    /// followed by two hex digits is kept as it is.
    static func decodeQuotedPrintable(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var i = bytes.startIndex
        while i < bytes.endIndex {
            let b = bytes[i]
            if b == UInt8(ascii: "="), i + 2 < bytes.endIndex, let high = hexValue(bytes[i + 1]), let low = hexValue(bytes[i + 2]) {
                out.append(high << 4 | low)
                i += 3
            } else {
                out.append(b)
                i += 1
            }
        }
        return out
    }

    private static func hexValue(_ b: UInt8) -> UInt8? {
        switch b {
        case 0x30...0x39: b - 0x30
        case 0x41...0x46: b - 0x41 + 10
        case 0x61...0x66: b - 0x61 + 10
        default: nil
        }
    }

    /// The bytes as a string in `charset`; nil when they are not valid UTF-8 where UTF-8 is required.
    static func string(_ bytes: ArraySlice<UInt8>, _ charset: Charset) -> String? {
        switch charset {
        case .utf8:
            return String(validating: bytes, as: UTF8.self)
        case .latin1:
            return String(String.UnicodeScalarView(bytes.map { Unicode.Scalar($0) }))
        case .windows1252:
            return String(String.UnicodeScalarView(bytes.map(windows1252Scalar)))
        case .utf8OrWindows1252:
            return String(validating: bytes, as: UTF8.self) ?? string(bytes, .windows1252)
        }
    }

    /// Windows-1252 differs from ISO-8859-1 only in 0x80–0x9F; its five unassigned bytes stay C1 controls.
    private static func windows1252Scalar(_ b: UInt8) -> Unicode.Scalar {
        guard b >= 0x80 && b <= 0x9F else { return Unicode.Scalar(b) }
        let code = windows1252High[Int(b - 0x80)]
        return Unicode.Scalar(code) ?? Unicode.Scalar(b)
    }
    private static let windows1252High: [UInt32] = [
        0x20AC, 0x81, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0x8D, 0x017D, 0x8F,
        0x90, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x9D, 0x017E, 0x0178,
    ]

    /// Backslash escapes resolved: `\n` `\N` newline, `\,` `\;` `\:` `\\` the character itself.
    /// Any other backslash is kept (a 2.1 value may hold a Windows path).
    static func unescape(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        guard bytes.contains(UInt8(ascii: "\\")) else { return bytes }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var i = bytes.startIndex
        while i < bytes.endIndex {
            let b = bytes[i]
            if b == UInt8(ascii: "\\"), i + 1 < bytes.endIndex {
                switch bytes[i + 1] {
                case UInt8(ascii: "n"), UInt8(ascii: "N"): out.append(0x0A); i += 2; continue
                case UInt8(ascii: ","), UInt8(ascii: ";"), UInt8(ascii: ":"), UInt8(ascii: "\\"): out.append(bytes[i + 1]); i += 2; continue
                default: break
                }
            }
            out.append(b)
            i += 1
        }
        return out[...]
    }

    /// Without surrounding ASCII white space (space, tab, CR, LF).
    static func trimmed(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        var slice = bytes
        while let first = slice.first, first == 0x20 || first == 0x09 || first == 0x0A || first == 0x0D { slice.removeFirst() }
        while let last = slice.last, last == 0x20 || last == 0x09 || last == 0x0A || last == 0x0D { slice.removeLast() }
        return slice
    }

    /// Splits on `separator` where it is not escaped with a backslash; the parts keep their escapes.
    static func split(_ bytes: ArraySlice<UInt8>, on separator: UInt8) -> [ArraySlice<UInt8>] {
        var parts: [ArraySlice<UInt8>] = []
        var start = bytes.startIndex
        var i = bytes.startIndex
        while i < bytes.endIndex {
            let b = bytes[i]
            if b == UInt8(ascii: "\\") { i += 2; continue }
            if b == separator { parts.append(bytes[start..<i]); start = i + 1 }
            i += 1
        }
        parts.append(bytes[start..<bytes.endIndex])
        return parts
    }
}
