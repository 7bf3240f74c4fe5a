#if canImport(Glibc)
import Glibc
#endif

/// Reads the bytes of a .vcf file as unfolded content lines, each with the number of its first
/// physical line (for warnings).
///
/// Lines end in CRLF or LF. A physical line that starts with a space or tab continues the one
/// before. vCard 3.0 and 4.0 (RFC 6350 §3.2) drop that one white space character; vCard 2.1 folds
/// RFC 822 style, only where white space already was, so the character stays. A quoted-printable
/// value (2.1) that ends in `=` is a soft line break: the next physical line continues it.
struct VCardLineReader {
    private let bytes: UnsafeBufferPointer<UInt8>
    private var position = 0
    private var physicalLines = 0
    /// True inside a 2.1 card: folding keeps the white space (see above).
    var keepsFoldingWhitespace = false
    /// The current logical line, reused from line to line so reading allocates once.
    private(set) var line: [UInt8] = []
    /// The physical line number (from 1) where `line` starts.
    private(set) var lineNumber = 0

    init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
        // A UTF-8 byte order mark is not part of the first line.
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { position = 3 }
        line.reserveCapacity(256)
    }

    /// Moves to the next logical line; false at the end of the input.
    mutating func next() -> Bool {
        guard position < bytes.count else { return false }
        line.removeAll(keepingCapacity: true)
        lineNumber = physicalLines + 1
        appendPhysicalLine(skipping: 0)
        while position < bytes.count {
            let first = bytes[position]
            // A soft break first: a quoted-printable continuation may itself start with a space.
            if line.last == UInt8(ascii: "="), isQuotedPrintable {
                line.removeLast()
                appendPhysicalLine(skipping: 0)
            } else if first == 0x20 || first == 0x09 {
                appendPhysicalLine(skipping: keepsFoldingWhitespace ? 0 : 1)
            } else {
                break
            }
        }
        return true
    }

    private mutating func appendPhysicalLine(skipping prefix: Int) {
        let start = position
        let remaining = bytes.count - start
        var end = bytes.count
        if let newline = memchr(bytes.baseAddress! + start, 0x0A, remaining) {
            end = bytes.baseAddress!.distance(to: newline.assumingMemoryBound(to: UInt8.self))
        }
        position = min(end + 1, bytes.count)
        physicalLines += 1
        if end > start, bytes[end - 1] == 0x0D { end -= 1 }
        guard start + prefix < end else { return }
        line.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[(start + prefix)..<end]))
    }

    private static let quotedPrintable = Array("QUOTED-PRINTABLE".utf8)

    /// Whether the current line's parameters (before the first `:`) say QUOTED-PRINTABLE.
    private var isQuotedPrintable: Bool {
        let marker = VCardLineReader.quotedPrintable
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")), colon >= marker.count else { return false }
        var i = 0
        while i + marker.count <= colon {
            if VCardText.equalsIgnoringCase(line[i..<(i + marker.count)], marker) { return true }
            i += 1
        }
        return false
    }
}
