/// Anchors are stored as tab-separated text lines; names and keys in them escape the three
/// characters that would break a line: tab as `%09`, newline as `%0A`, and `%` itself as `%25`.
enum AnchorText {
    private static func isSpecial(_ byte: UInt8) -> Bool { byte == 0x09 || byte == 0x0A || byte == 0x25 }   // tab, newline, %

    static func escape(_ name: String) -> String {
        // A native string's bytes scanned in place (every key of a file passes here).
        guard name.utf8.withContiguousStorageIfAvailable({ $0.contains(where: isSpecial) }) ?? name.utf8.contains(where: isSpecial) else { return name }
        var out: [UInt8] = []
        append(name, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// `name`, escaped, appended to `out`: no string made per name of an anchor being written.
    static func append(_ name: String, to out: inout [UInt8]) {
        guard name.utf8.contains(where: isSpecial) else { out.append(contentsOf: name.utf8); return }
        for byte in name.utf8 {
            switch byte {
            case 0x09: out.append(contentsOf: "%09".utf8)
            case 0x0A: out.append(contentsOf: "%0A".utf8)
            case 0x25: out.append(contentsOf: "%25".utf8)
            default: out.append(byte)
            }
        }
    }

    static func unescape(_ name: String) -> String {
        guard name.utf8.contains(0x25) else { return name }          // %
        return name.replacing("%09", with: "\t").replacing("%0A", with: "\n").replacing("%25", with: "%")
    }
}
