import FoundationEssentials
import IngestCore

/// Splits one JSON array of an export into its elements, each with the 1-based line it starts
/// on, so a bad record can be named by line and a file cut off mid-way keeps every element
/// before the cut. Only brackets, strings and commas are tracked here; each element is then
/// parsed on its own. The stream is read in blocks and only the element in progress is held,
/// so memory does not grow with the file.
enum JSONArrayElements {
    enum End: Equatable {
        /// The array was closed.
        case complete
        /// The bytes ended inside the array (a cut-off file): the elements before the cut were handed on.
        case truncated(line: Int)
        /// No such array: not a top-level array, or the top-level object has no `key` holding one.
        case missing
    }

    /// One element may be held up to this size; a longer one is refused rather than held.
    static let longestElement = 64 << 20

    /// Calls `element` for each element of the document's top-level array (`key` nil) or of the
    /// array under `key` in the top-level object, with the element (nil when it is not valid
    /// JSON) and its line.
    static func scan(_ stream: any ByteStream, key: String? = nil,
                     _ element: (JSONValue?, Int) throws(FileReadError) -> Void) throws(FileReadError) -> End {
        var splitter = Splitter(wanted: key.map { Array($0.utf8) })
        let block = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 16)
        defer { block.deallocate() }
        while true {
            let n = try stream.read(into: block)
            guard n > 0 else { return splitter.found ? .truncated(line: splitter.line) : .missing }
            splitter.take(UnsafeRawBufferPointer(rebasing: block[0..<n]))
            guard splitter.held.count <= longestElement else { throw FileReadError("a record over \(longestElement >> 20) MiB at line \(splitter.elementLine)") }
            if let end = try splitter.split(element) { try stream.drain(); return end }
        }
    }

    /// The state of a scan between blocks.
    private struct Splitter {
        let wanted: [UInt8]?
        /// The depth of the wanted array's elements.
        var target: Int { wanted == nil ? 1 : 2 }
        /// Bytes not yet dropped: from the element (or depth-1 string) in progress on.
        var held: [UInt8] = []
        var i = 0
        var line = 1, depth = 0
        var found = false
        var inString = false, escaping = false
        /// Where the last depth-1 string (a key, for `wanted`) began, and its bytes once it ended.
        var keyStart: Int?
        var lastKey: [UInt8] = []
        var elementStart: Int?, elementLine = 0

        /// Appends a block, dropping what is read and not needed any more.
        mutating func take(_ bytes: UnsafeRawBufferPointer) {
            let keep = min(elementStart ?? i, keyStart ?? i, i)
            if keep > 0 {
                held.removeSubrange(0..<keep)
                i -= keep; elementStart = elementStart.map { $0 - keep }; keyStart = keyStart.map { $0 - keep }
            }
            held.append(contentsOf: bytes)
        }

        /// Walks the bytes held; returns how the array ended, or nil when more bytes are needed.
        mutating func split(_ element: (JSONValue?, Int) throws(FileReadError) -> Void) throws(FileReadError) -> End? {
            while i < held.count {
                let b = held[i]
                i += 1
                if inString {                          // a string: skipped whole, escapes included
                    if escaping { escaping = false }
                    else if b == 0x5C { escaping = true }
                    else if b == 0x22 {
                        inString = false
                        if let start = keyStart { lastKey = Array(held[start..<(i - 1)]); keyStart = nil }
                    } else if b == 0x0A { line += 1 }
                    continue
                }
                if b == 0x0A { line += 1; continue }
                if found, depth == target, elementStart == nil, b != 0x20, b != 0x09, b != 0x0D, b != 0x2C, b != 0x5D {
                    elementStart = i - 1; elementLine = line
                }
                switch b {
                case 0x22:
                    inString = true
                    if depth == 1 { keyStart = i }
                case 0x5B, 0x7B:                       // [ {
                    if depth == 0, b != (wanted == nil ? 0x5B : 0x7B) { return .missing }
                    if !found, depth == target - 1, wanted == nil || (b == 0x5B && lastKey == wanted!) { found = true }
                    depth += 1
                case 0x5D, 0x7D:                       // ] }
                    if found, depth == target {
                        if let start = elementStart { try element(JSONValue.parse(held[start..<(i - 1)]), elementLine) }
                        return .complete
                    }
                    depth -= 1
                case 0x2C:                             // ,
                    if found, depth == target, let start = elementStart {
                        try element(JSONValue.parse(held[start..<(i - 1)]), elementLine); elementStart = nil
                    }
                default: break
                }
            }
            return nil
        }
    }

    /// A number written as a number or as a string (Fitbit writes `"value":"120"`).
    static func number(_ value: JSONValue?) -> Double? {
        switch value {
        case .int(let i): Double(i)
        case .double(let d): d
        case .string(let s): Double(s)
        default: nil
        }
    }
}
