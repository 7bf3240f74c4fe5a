import FoundationEssentials

/// A JSON value with a deterministic encoding: object keys are written sorted, so the
/// same fields always give the same bytes (versions are hashes of these bytes).
public enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])
}

// MARK: - Literals

extension JSONValue: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    public init(nilLiteral: ()) { self = .null }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(integerLiteral value: Int64) { self = .int(value) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(stringLiteral value: String) { self = .string(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}

extension JSONValue {
    /// `.null` for nil, so optional fields can be written inline and dropped by `compacted`.
    public init(_ string: String?) { self = string.map(JSONValue.string) ?? .null }
    public init(_ number: Double?) { self = number.map(JSONValue.double) ?? .null }
    public init(_ number: Int?) { self = number.map { .int(Int64($0)) } ?? .null }

    public subscript(key: String) -> JSONValue? {
        if case .object(let fields) = self { return fields[key] }
        return nil
    }
    public var stringValue: String? { if case .string(let s) = self { return s }; return nil }
    public var intValue: Int64? {
        switch self {
        case .int(let i): return i
        case .double(let d) where d == d.rounded() && abs(d) < 9e15: return Int64(d)
        default: return nil
        }
    }
    public var doubleValue: Double? {
        switch self {
        case .int(let i): return Double(i)
        case .double(let d): return d
        default: return nil
        }
    }
    public var arrayValue: [JSONValue]? { if case .array(let a) = self { return a }; return nil }
}

// MARK: - Encoding

extension JSONValue {
    /// The compact UTF-8 encoding, keys sorted.
    public var encoded: [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(128)
        encode(into: &out)
        return out
    }

    public func encode(into out: inout [UInt8]) {
        switch self {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let b): out.append(contentsOf: (b ? "true" : "false").utf8)
        case .int(let i): JSONValue.encode(integer: i, into: &out)
        case .double(let d): JSONValue.encode(number: d, into: &out)
        case .string(let s): JSONValue.encodeString(s, into: &out)
        case .array(let values):
            out.append(UInt8(ascii: "["))
            for (i, v) in values.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                v.encode(into: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let fields):
            out.append(UInt8(ascii: "{"))
            for (i, field) in fields.sorted(by: { $0.key < $1.key }).enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                JSONValue.encodeString(field.key, into: &out)
                out.append(UInt8(ascii: ":"))
                field.value.encode(into: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    /// An object's members encoded one by one (`"name":value`), in key order.
    struct EncodedMembers {
        var bytes: [UInt8] = []
        var members: [(name: String, range: Range<Int>)] = []
    }

    static func encodedMembers(_ fields: [String: JSONValue]) -> EncodedMembers {
        encodedMembers(fields.sorted(by: { $0.key < $1.key }))
    }

    /// The members of fields already in key order.
    static func encodedMembers(_ sorted: [(key: String, value: JSONValue)]) -> EncodedMembers {
        var out = EncodedMembers()
        out.bytes.reserveCapacity(sorted.count * 24)
        out.members.reserveCapacity(sorted.count)
        for (name, value) in sorted {
            let start = out.bytes.count
            encodeString(name, into: &out.bytes)
            out.bytes.append(UInt8(ascii: ":"))
            value.encode(into: &out.bytes)
            out.members.append((name, start..<out.bytes.count))
        }
        return out
    }

    /// `{…}` of the members not named in `excluded`: the same bytes `.object(…).encoded` gives.
    static func object(_ m: EncodedMembers, excluding excluded: Set<String>) -> [UInt8] {
        var out: [UInt8] = [UInt8(ascii: "{")]
        out.reserveCapacity(m.bytes.count + 2)
        for member in m.members where !excluded.contains(member.name) {
            if out.count > 1 { out.append(UInt8(ascii: ",")) }
            out.append(contentsOf: m.bytes[member.range])
        }
        out.append(UInt8(ascii: "}"))
        return out
    }

    /// `{…}` of all members with `extra` (in key order) merged in at their sorted places.
    static func object(_ m: EncodedMembers, merging extra: [(String, JSONValue)]) -> [UInt8] {
        var out: [UInt8] = [UInt8(ascii: "{")]
        out.reserveCapacity(m.bytes.count + 96)
        var next = extra[...]
        func separate() { if out.count > 1 { out.append(UInt8(ascii: ",")) } }
        func writeExtra(_ e: (String, JSONValue)) {
            separate()
            encodeString(e.0, into: &out); out.append(UInt8(ascii: ":")); e.1.encode(into: &out)
        }
        for member in m.members {
            while let e = next.first, e.0 < member.name { writeExtra(e); next.removeFirst() }
            separate()
            out.append(contentsOf: m.bytes[member.range])
        }
        for e in next { writeExtra(e) }
        out.append(UInt8(ascii: "}"))
        return out
    }

    static func encode(integer i: Int64, into out: inout [UInt8]) {
        out.append(contentsOf: String(i).utf8)
    }

    static func encode(number d: Double, into out: inout [UInt8]) {
        // JSON has no NaN or infinity; an unknown number is better sent as null than as invalid JSON.
        guard d.isFinite else { out.append(contentsOf: "null".utf8); return }
        if d == d.rounded(), abs(d) < 1e15 { encode(integer: Int64(d), into: &out) } else {
            out.append(contentsOf: String(d).utf8)
        }
    }

    static func encodeString(_ s: String, into out: inout [UInt8]) {
        // A native string's bytes are contiguous: scanned and copied whole, not byte by byte.
        if let done = s.utf8.withContiguousStorageIfAvailable({ encodeString(bytes: $0, into: &out) }) { return done }
        encodeString(bytes: Array(s.utf8), into: &out)
    }

    /// `bytes`, valid UTF-8, as a JSON string.
    static func encodeString(bytes: some Collection<UInt8>, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        // Most strings need no escaping: copy them whole.
        guard bytes.contains(where: { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C }) else {
            out.append(contentsOf: bytes)
            out.append(UInt8(ascii: "\""))
            return
        }
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "\""): out.append(contentsOf: [0x5C, 0x22])
            case UInt8(ascii: "\\"): out.append(contentsOf: [0x5C, 0x5C])
            case 0x0A: out.append(contentsOf: [0x5C, UInt8(ascii: "n")])
            case 0x0D: out.append(contentsOf: [0x5C, UInt8(ascii: "r")])
            case 0x09: out.append(contentsOf: [0x5C, UInt8(ascii: "t")])
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                out.append(contentsOf: [0x5C, UInt8(ascii: "u"), 0x30, 0x30, hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}

// MARK: - Decoding

extension JSONValue: Codable {
    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() { self = .null }
        else if let b = try? c.decode(Bool.self) { self = .bool(b) }
        else if let i = try? c.decode(Int64.self) { self = .int(i) }
        else if let d = try? c.decode(Double.self) { self = .double(d) }
        else if let s = try? c.decode(String.self) { self = .string(s) }
        else if let a = try? c.decode([JSONValue].self) { self = .array(a) }
        else { self = .object(try c.decode([String: JSONValue].self)) }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case .null: try c.encodeNil()
        case .bool(let b): try c.encode(b)
        case .int(let i): try c.encode(i)
        case .double(let d): try c.encode(d)
        case .string(let s): try c.encode(s)
        case .array(let a): try c.encode(a)
        case .object(let o): try c.encode(o)
        }
    }

    /// Parses UTF-8 JSON; nil when it is not JSON.
    public static func parse(_ bytes: some Collection<UInt8>) -> JSONValue? {
        try? JSONDecoder().decode(JSONValue.self, from: Data(bytes))
    }
}
