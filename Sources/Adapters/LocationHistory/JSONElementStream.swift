/// The elements of the arrays under chosen top-level keys of one large JSON object (`locations`
/// of a 500 MB Records.json, `semanticSegments` of a Timeline.json), or of a document that is
/// itself an array (the iPhone's Timeline export), one at a time, each copied out with the line
/// it starts on. Only brackets, strings and the key before each top-level array are tracked
/// here; each element is parsed on its own. Running out of bytes inside an element throws,
/// after every element before the cut was given.
struct JSONElementStream {
    private var reader: BlockReader
    let keys: Set<String>
    /// The elements wanted are those of the root array (given under the key ""), not of keys.
    let rootArray: Bool
    private var depth = 0
    private var inTargetArray = false
    /// The last string read at depth 1 (a key, when a `:` follows).
    private var lastKey: [UInt8] = []

    init(_ reader: BlockReader, keys: Set<String>) { self.reader = reader; self.keys = keys; rootArray = false }

    /// The elements of a document that is one array.
    init(rootArrayOf reader: BlockReader) { self.reader = reader; keys = []; rootArray = true }

    private var elementDepth: Int { rootArray ? 1 : 2 }

    var line: Int { reader.line }

    /// The next element of a wanted array and its key, or nil at the end of the document.
    mutating func next() throws(FileReadError) -> (key: String, element: [UInt8], line: Int)? {
        while true {
            if reader.position == reader.bytes.count { guard try reader.refill() else { return nil } }
            let c = reader.bytes[reader.position]
            if inTargetArray, depth == elementDepth, c == UInt8(ascii: "{") || c == UInt8(ascii: "[") {
                let line = reader.line
                return (String(decoding: lastKey, as: UTF8.self), try element(), line)
            }
            switch c {
            case UInt8(ascii: "\""):
                let text = try string()
                if depth == 1 { lastKey = text }
                continue
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                if depth == elementDepth - 1, c == UInt8(ascii: "["),
                   rootArray || keys.contains(String(decoding: lastKey, as: UTF8.self)) { inTargetArray = true }
                depth += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                depth -= 1
                if depth < elementDepth { inTargetArray = false }
            case UInt8(ascii: "\n"): reader.line += 1
            default: break
            }
            reader.position += 1
        }
    }

    /// A string at `position` (its quotes consumed): its raw bytes, escapes as written.
    private mutating func string() throws(FileReadError) -> [UInt8] {
        var at = reader.position + 1
        while true {
            while at < reader.bytes.count {
                switch reader.bytes[at] {
                case UInt8(ascii: "\""):
                    let text = Array(reader.bytes[(reader.position + 1)..<at])
                    reader.position = at + 1
                    return text
                case UInt8(ascii: "\\"): at += 2
                default: at += 1
                }
            }
            let offset = at - reader.position
            guard try reader.refill() else { throw FileReadError("cut off at line \(reader.line)") }
            at = reader.position + offset
        }
    }

    /// One whole object or array from `position`, copied out.
    private mutating func element() throws(FileReadError) -> [UInt8] {
        var at = reader.position, level = 0, inString = false, lines = 0
        while true {
            while at < reader.bytes.count {
                let c = reader.bytes[at]
                at += 1
                if inString {
                    if c == UInt8(ascii: "\\") { at += 1 } else if c == UInt8(ascii: "\"") { inString = false }
                    continue
                }
                switch c {
                case UInt8(ascii: "\""): inString = true
                case UInt8(ascii: "{"), UInt8(ascii: "["): level += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    level -= 1
                    if level == 0 {
                        let out = Array(reader.bytes[reader.position..<at])
                        reader.position = at
                        reader.line += lines
                        return out
                    }
                case UInt8(ascii: "\n"): lines += 1
                default: break
                }
            }
            let offset = at - reader.position
            guard try reader.refill() else { throw FileReadError("cut off at line \(reader.line + lines)") }
            at = reader.position + offset
        }
    }
}
