/// Anchors are stored as tab-separated text lines; names and keys in them escape the three
/// characters that would break a line: tab as `%09`, newline as `%0A`, and `%` itself as `%25`.
enum AnchorText {
    static func escape(_ name: String) -> String {
        let special = { (byte: UInt8) in byte == 0x09 || byte == 0x0A || byte == 0x25 }       // tab, newline, %
        // A native string's bytes scanned in place (every key of a file passes here).
        guard name.utf8.withContiguousStorageIfAvailable({ $0.contains(where: special) }) ?? name.utf8.contains(where: special) else { return name }
        return name.replacing("%", with: "%25").replacing("\t", with: "%09").replacing("\n", with: "%0A")
    }

    static func unescape(_ name: String) -> String {
        guard name.utf8.contains(0x25) else { return name }          // %
        return name.replacing("%09", with: "\t").replacing("%0A", with: "\n").replacing("%25", with: "%")
    }
}
