import FoundationEssentials
import IngestCore

/// Splits one JSON array of an export into its elements, each with the 1-based line it starts
/// on, so a bad record can be named by line and a file cut off mid-way keeps every element
/// before the cut. Only brackets, strings and commas are tracked here; each element is then
/// parsed on its own.
enum JSONArrayElements {
    enum End: Equatable {
        /// The array was closed.
        case complete
        /// The bytes ended inside the array (a cut-off file): the elements before the cut were handed on.
        case truncated(line: Int)
        /// No such array: not a top-level array, or the top-level object has no `key` holding one.
        case missing
    }

    /// Calls `element` for each element of the document's top-level array (`key` nil) or of the
    /// array under `key` in the top-level object, with the element (nil when it is not valid
    /// JSON) and its line.
    static func scan(_ bytes: [UInt8], key: String? = nil,
                     _ element: (JSONValue?, Int) throws(HealthReadError) -> Void) throws(HealthReadError) -> End {
        let wanted = key.map { Array($0.utf8) }
        let target = key == nil ? 1 : 2                // the depth of the wanted array's elements
        var i = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        var line = 1, depth = 0
        var found = false
        var lastKey: [UInt8] = []
        var elementStart: Int?, elementLine = 0
        while i < bytes.count {
            let b = bytes[i]
            if b == 0x0A { line += 1; i += 1; continue }
            if found, depth == target, elementStart == nil, b != 0x20, b != 0x09, b != 0x0D, b != 0x2C, b != 0x5D {
                elementStart = i; elementLine = line
            }
            switch b {
            case 0x22:                                 // a string: skip it whole, escapes included
                let start = i + 1
                i += 1
                while i < bytes.count, bytes[i] != 0x22 {
                    if bytes[i] == 0x5C { i += 1 } else if bytes[i] == 0x0A { line += 1 }
                    i += 1
                }
                if depth == 1, i <= bytes.count { lastKey = Array(bytes[start..<min(i, bytes.count)]) }
            case 0x5B, 0x7B:                           // [ {
                if depth == 0, b != (key == nil ? 0x5B : 0x7B) { return .missing }
                if !found, depth == target - 1, key == nil || (b == 0x5B && lastKey == wanted!) { found = true }
                depth += 1
            case 0x5D, 0x7D:                           // ] }
                if found, depth == target {
                    if let start = elementStart { try element(JSONValue.parse(bytes[start..<i]), elementLine) }
                    return .complete
                }
                depth -= 1
            case 0x2C:                                 // ,
                if found, depth == target, let start = elementStart {
                    try element(JSONValue.parse(bytes[start..<i]), elementLine); elementStart = nil
                }
            default: break
            }
            i += 1
        }
        return found ? .truncated(line: line) : .missing
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
