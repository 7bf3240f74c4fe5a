/// The tags of an XML document, one at a time, each with the text just before it: enough for
/// formats whose values sit in small leaf elements (`<when>` and `<gx:coord>` of KML,
/// `<Time>` and `<LatitudeDegrees>` of TCX), read in blocks however large the file. Names
/// lose their namespace prefix (`gx:coord` is `coord`). Comments, CDATA sections, processing
/// instructions and the DOCTYPE are passed over. Text longer than a leaf value (a LineString's
/// coordinates, a description) is not kept, so memory stays bounded.
struct XMLTagStream {
    private var reader: BlockReader

    struct Tag {
        var name: [UInt8]
        var closing: Bool
        var selfClosing: Bool
        /// The text between the previous tag and this one, trimmed; empty when longer than `textLimit`.
        var text: [UInt8]
        var line: Int
    }

    static let textLimit = 256

    init(_ reader: BlockReader) { self.reader = reader }

    /// The next start or end tag, or nil at the end of the document.
    mutating func next() throws(FileReadError) -> Tag? {
        while true {
            guard let lt = try reader.find([UInt8(ascii: "<")]) else {
                reader.position = reader.bytes.count
                return nil
            }
            let text = lt <= XMLTagStream.textLimit ? XMLTagStream.trimmed(reader.bytes[reader.position..<(reader.position + lt)]) : []
            advance(by: lt)
            guard try reader.ensure(2) else { throw FileReadError("cut off at line \(reader.line)") }
            let second = reader.bytes[reader.position + 1]
            let end: [UInt8]
            if second == UInt8(ascii: "!") {
                _ = try reader.ensure(9)
                let head = reader.bytes[reader.position..<min(reader.bytes.count, reader.position + 9)]
                end = head.starts(with: "<!--".utf8) ? Array("-->".utf8) : head.starts(with: "<![CDATA[".utf8) ? Array("]]>".utf8) : [UInt8(ascii: ">")]
            } else if second == UInt8(ascii: "?") {
                end = Array("?>".utf8)
            } else {
                end = [UInt8(ascii: ">")]
            }
            guard let close = try reader.find(end, from: 1) else { throw FileReadError("cut off at line \(reader.line)") }
            let line = reader.line
            let tag = Array(reader.bytes[reader.position..<(reader.position + close + end.count)])
            advance(by: close + end.count)
            guard second != UInt8(ascii: "!"), second != UInt8(ascii: "?") else { continue }
            let closing = second == UInt8(ascii: "/")
            let nameStart = closing ? 2 : 1
            let qualified = tag[nameStart...].prefix { !($0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 || $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: ">")) }
            let name = qualified.lastIndex(of: UInt8(ascii: ":")).map { Array(qualified[($0 + 1)...]) } ?? Array(qualified)
            return Tag(name: name, closing: closing, selfClosing: tag.count >= 2 && tag[tag.count - 2] == UInt8(ascii: "/"), text: text, line: line)
        }
    }

    private mutating func advance(by count: Int) {
        for i in reader.position..<(reader.position + count) where reader.bytes[i] == 0x0A { reader.line += 1 }
        reader.position += count
    }

    static func trimmed(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
        func space(_ c: UInt8) -> Bool { c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 }
        guard let first = bytes.firstIndex(where: { !space($0) }), let last = bytes.lastIndex(where: { !space($0) }) else { return [] }
        return Array(bytes[first...last])
    }
}
