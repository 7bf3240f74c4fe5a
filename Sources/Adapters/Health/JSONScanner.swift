#if canImport(Glibc)
import Glibc
#endif

/// A pull scanner over JSON bytes that builds nothing it is not asked for: the caller walks
/// objects and arrays key by key, reads the few values it wants (numbers without a `String`,
/// strings as byte ranges it may compare or decode), and skips whole subtrees with a bracket
/// counter. Health Auto Export files run to hundreds of MB, and a tree of `Any` per data point
/// is what makes them slow elsewhere.
///
/// It is lenient where that costs nothing (a stray comma before a member is accepted) and
/// never reads past the buffer: running out of bytes inside a value throws `.truncated`, so a
/// caller keeps everything it took before the cut.
struct JSONScanner {
    enum Failure: Error, Equatable, CustomStringConvertible {
        case truncated(line: Int)
        case syntax(line: Int, String)

        var description: String {
            switch self {
            case .truncated(let line): "cut off at line \(line)"
            case .syntax(let line, let what): "not JSON at line \(line): \(what)"
            }
        }
    }

    enum Kind { case object, array, string, number, literal }

    let bytes: UnsafeBufferPointer<UInt8>
    /// The next byte to read.
    var position = 0
    /// The 1-based line of `position`, for warnings that name a data point.
    var line = 1

    init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { position = 3 }
    }

    // MARK: - Structure

    /// What the next value is, after any white space.
    mutating func peek() throws(Failure) -> Kind {
        skipSpace()
        guard position < bytes.count else { throw .truncated(line: line) }
        switch bytes[position] {
        case UInt8(ascii: "{"): return .object
        case UInt8(ascii: "["): return .array
        case UInt8(ascii: "\""): return .string
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number
        case UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "n"): return .literal
        case let c: throw .syntax(line: line, "unexpected \(Self.describe(c))")
        }
    }

    /// Consumes the `{` of an object; iterate its members with ``nextKey()``.
    mutating func enterObject() throws(Failure) { try expect(UInt8(ascii: "{")) }

    /// Consumes the `[` of an array; iterate its elements with ``nextElement()``.
    mutating func enterArray() throws(Failure) { try expect(UInt8(ascii: "[")) }

    /// The next member's key as a range of raw bytes (escapes left as written: keys worth
    /// matching are plain ASCII), with its `:` consumed; nil once the closing `}` is consumed.
    mutating func nextKey() throws(Failure) -> Range<Int>? {
        skipSpace()
        guard position < bytes.count else { throw .truncated(line: line) }
        if bytes[position] == UInt8(ascii: "}") { position += 1; return nil }
        if bytes[position] == UInt8(ascii: ",") { position += 1; skipSpace() }
        guard position < bytes.count else { throw .truncated(line: line) }
        guard bytes[position] == UInt8(ascii: "\"") else { throw .syntax(line: line, "expected a key, found \(Self.describe(bytes[position]))") }
        let key = try stringRange().range
        try expect(UInt8(ascii: ":"))
        return key
    }

    /// Whether another element follows in the array (its `,` consumed); false once the
    /// closing `]` is consumed.
    mutating func nextElement() throws(Failure) -> Bool {
        skipSpace()
        guard position < bytes.count else { throw .truncated(line: line) }
        switch bytes[position] {
        case UInt8(ascii: "]"): position += 1; return false
        case UInt8(ascii: ","): position += 1; skipSpace(); return true       // so `line` is the element's
        default: return true
        }
    }

    /// Whether the key `range` (from ``nextKey()``) is `name`.
    func key(_ range: Range<Int>, is name: StaticString) -> Bool {
        range.count == name.utf8CodeUnitCount && memcmp(bytes.baseAddress! + range.lowerBound, name.utf8Start, range.count) == 0
    }

    /// Skips one value of any kind, a whole object or array included, without decoding it.
    mutating func skipValue() throws(Failure) {
        switch try peek() {
        case .string: _ = try stringRange()
        case .number, .literal: _ = try tokenEnd()
        case .object, .array:
            var depth = 0
            while position < bytes.count {
                switch bytes[position] {
                case UInt8(ascii: "\""): _ = try stringRange(); continue
                case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    depth -= 1
                    if depth == 0 { position += 1; return }
                case UInt8(ascii: "\n"): line += 1
                default: break
                }
                position += 1
            }
            throw .truncated(line: line)
        }
    }

    // MARK: - Values

    /// The bytes between a string's quotes, and whether they hold escapes (then ``decode(_:escaped:)``
    /// is needed to read them). The closing quote is consumed.
    mutating func stringRange() throws(Failure) -> (range: Range<Int>, escaped: Bool) {
        try expect(UInt8(ascii: "\""))
        let start = position
        var escaped = false
        while position < bytes.count {
            let c = bytes[position]
            if c == UInt8(ascii: "\"") { position += 1; return (start..<(position - 1), escaped) }
            if c == UInt8(ascii: "\\") { escaped = true; position += 2; continue }
            if c == UInt8(ascii: "\n") { throw .syntax(line: line, "a line break inside a string") }
            position += 1
        }
        position = bytes.count
        throw .truncated(line: line)
    }

    /// A string value, decoded; nil (the value skipped) when the value is not a string.
    mutating func string() throws(Failure) -> String? {
        guard try peek() == .string else { try skipValue(); return nil }
        let (range, escaped) = try stringRange()
        return decode(range, escaped: escaped)
    }

    /// A number, or a string that holds one (exports write both); nil, with the value skipped,
    /// for anything else (`null`, `"n/a"`, an object).
    mutating func number() throws(Failure) -> Double? {
        switch try peek() {
        case .number:
            let start = position
            let end = try tokenEnd()
            return Self.number(UnsafeBufferPointer(rebasing: bytes[start..<end]))
        case .string:
            let (range, escaped) = try stringRange()
            return escaped ? nil : Self.number(UnsafeBufferPointer(rebasing: bytes[range]))
        default:
            try skipValue(); return nil
        }
    }

    /// The text of a string's bytes from ``stringRange()``.
    func decode(_ range: Range<Int>, escaped: Bool) -> String {
        let raw = UnsafeBufferPointer(rebasing: bytes[range])
        guard escaped else { return String(decoding: raw, as: UTF8.self) }
        var out: [UInt8] = []
        out.reserveCapacity(raw.count)
        var i = 0
        func hex4(_ at: Int) -> UInt32? {
            guard at + 4 <= raw.count else { return nil }
            var v: UInt32 = 0
            for c in raw[at..<(at + 4)] {
                guard let d = Self.hexDigit(c) else { return nil }
                v = v << 4 | d
            }
            return v
        }
        while i < raw.count {
            let c = raw[i]
            guard c == UInt8(ascii: "\\"), i + 1 < raw.count else { out.append(c); i += 1; continue }
            let e = raw[i + 1]
            i += 2
            switch e {
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "u"):
                guard var scalar = hex4(i) else { out.append(contentsOf: "\u{FFFD}".utf8); continue }
                i += 4
                // A surrogate pair spells one scalar in two escapes; a lone half becomes U+FFFD.
                if (0xD800..<0xDC00).contains(scalar), i + 1 < raw.count, raw[i] == UInt8(ascii: "\\"),
                   raw[i + 1] == UInt8(ascii: "u"), let low = hex4(i + 2), (0xDC00..<0xE000).contains(low) {
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    i += 6
                }
                out.append(contentsOf: String(Character(Unicode.Scalar(scalar) ?? "\u{FFFD}")).utf8)
            default: out.append(e)          // \" \\ \/ and anything else stand for themselves
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    // MARK: - Numbers

    /// Parses a whole buffer as a decimal number (JSON's grammar, plus a leading `+` and
    /// surrounding spaces); nil when anything else is in it. Up to 15 significant digits and
    /// exponents within ±22 are exact in one multiplication; longer ones go to the stdlib.
    static func number(_ text: UnsafeBufferPointer<UInt8>) -> Double? {
        var i = 0, end = text.count
        while i < end, text[i] == 0x20 { i += 1 }
        while end > i, text[end - 1] == 0x20 { end -= 1 }
        guard i < end else { return nil }
        let start = i
        var negative = false
        if text[i] == UInt8(ascii: "-") || text[i] == UInt8(ascii: "+") { negative = text[i] == UInt8(ascii: "-"); i += 1 }
        var mantissa: UInt64 = 0, digits = 0, scale = 0, sawDigit = false
        while i < end, let d = digit(text[i]) {
            sawDigit = true
            if digits < 19 { mantissa = mantissa &* 10 &+ UInt64(d); if mantissa > 0 { digits += 1 } } else { scale += 1 }
            i += 1
        }
        if i < end, text[i] == UInt8(ascii: ".") {
            i += 1
            while i < end, let d = digit(text[i]) {
                sawDigit = true
                if digits < 19 { mantissa = mantissa &* 10 &+ UInt64(d); scale -= 1; if mantissa > 0 { digits += 1 } }
                i += 1
            }
        }
        guard sawDigit else { return nil }
        var exponent = 0
        if i < end, text[i] | 0x20 == UInt8(ascii: "e") {
            i += 1
            var negativeExponent = false
            if i < end, text[i] == UInt8(ascii: "-") || text[i] == UInt8(ascii: "+") { negativeExponent = text[i] == UInt8(ascii: "-"); i += 1 }
            guard i < end else { return nil }
            while i < end, let d = digit(text[i]) { if exponent < 100_000 { exponent = exponent * 10 + d }; i += 1 }
            if negativeExponent { exponent = -exponent }
        }
        guard i == end else { return nil }
        let power = scale + exponent
        var value: Double
        if digits <= 15, abs(power) <= 22 {
            value = power < 0 ? Double(mantissa) / powersOfTen[-power] : Double(mantissa) * powersOfTen[power]
        } else {
            guard let slow = Double(String(decoding: UnsafeBufferPointer(rebasing: text[start..<end]), as: UTF8.self)) else { return nil }
            return slow
        }
        if negative { value = -value }
        return value
    }

    private static let powersOfTen: [Double] = (0...22).map { (0..<$0).reduce(1.0) { x, _ in x * 10 } }

    // MARK: - Helpers

    private mutating func skipSpace() {
        while position < bytes.count {
            switch bytes[position] {
            case UInt8(ascii: "\n"): line += 1
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\r"): break
            default: return
            }
            position += 1
        }
    }

    private mutating func expect(_ c: UInt8) throws(Failure) {
        skipSpace()
        guard position < bytes.count else { throw .truncated(line: line) }
        guard bytes[position] == c else { throw .syntax(line: line, "expected \(Self.describe(c)), found \(Self.describe(bytes[position]))") }
        position += 1
    }

    /// Consumes a number or literal (`true`, `null`) and returns where it ends. A token that runs
    /// into the end of the buffer may be cut short, so that is a truncation, not a value.
    private mutating func tokenEnd() throws(Failure) -> Int {
        let start = position
        while position < bytes.count {
            switch bytes[position] {
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "-"), UInt8(ascii: "+"), UInt8(ascii: "."): position += 1
            default:
                guard position > start else { throw .syntax(line: line, "unexpected \(Self.describe(bytes[position]))") }
                return position
            }
        }
        throw .truncated(line: line)
    }

    private static func digit(_ c: UInt8) -> Int? {
        c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9") ? Int(c &- UInt8(ascii: "0")) : nil
    }

    private static func hexDigit(_ c: UInt8) -> UInt32? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(c - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt32(c - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt32(c - UInt8(ascii: "A") + 10)
        default: nil
        }
    }

    private static func describe(_ c: UInt8) -> String {
        c >= 0x21 && c < 0x7F ? "'\(Character(Unicode.Scalar(c)))'" : "byte 0x" + String(c, radix: 16)
    }
}
