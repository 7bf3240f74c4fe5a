#if canImport(Glibc)
import Glibc
#endif

/// A pull scanner over JSON bytes that builds nothing it is not asked for: the caller walks
/// objects and arrays key by key, reads the few values it wants (numbers without a `String`,
/// strings as byte ranges it may compare or decode), and skips whole subtrees with a bracket
/// counter. Health Auto Export files run to hundreds of MB, and a tree of `Any` per data point
/// is what makes them slow elsewhere.
///
/// It reads its stream in blocks into a window it owns: memory stays at two blocks however
/// large the file, unless one value (a string, a number) is longer than a block. A range it
/// returns is valid until the next call; the bytes before it may be dropped then.
///
/// It is lenient where that costs nothing (a stray comma before a member is accepted) and
/// never reads past the bytes: running out of them inside a value throws `.truncated`, so a
/// caller keeps everything it took before the cut.
struct JSONScanner: ~Copyable {
    enum Failure: Error, Equatable, CustomStringConvertible {
        case truncated(line: Int)
        case syntax(line: Int, String)
        /// The stream could not be read.
        case read(String)

        var description: String {
            switch self {
            case .truncated(let line): "cut off at line \(line)"
            case .syntax(let line, let what): "not JSON at line \(line): \(what)"
            case .read(let reason): reason
            }
        }
    }

    enum Kind { case object, array, string, number, literal }

    /// One value may grow the window up to this; a longer one is refused rather than held.
    static let longestValue = 64 << 20

    private var window: UnsafeMutableBufferPointer<UInt8>
    /// Bytes in `window`.
    private var count = 0
    private let stream: (any ByteStream)?
    private let blockSize: Int
    /// The stream's offset of `window[0]`.
    private var base: Int64 = 0
    /// Where the current call began: the bytes before it may be dropped to make room.
    private var mark = 0
    /// The next byte to read, in `window`.
    private var position = 0
    /// The 1-based line of `position`, for warnings that name a data point.
    private(set) var line = 1

    /// Scans `stream` from where it stands; `line` is that place's line, and a byte-order mark is
    /// skipped only at a file's start.
    init(stream: any ByteStream, line: Int = 1, atFileStart: Bool = true, blockSize: Int = 1 << 20) throws(Failure) {
        self.stream = stream; self.blockSize = blockSize; self.line = line
        window = .allocate(capacity: 2 * blockSize)
        while count < 3, try more() != nil {}
        if atFileStart, count >= 3, window[0] == 0xEF, window[1] == 0xBB, window[2] == 0xBF { position = 3 }
    }

    /// Scans bytes held in memory (a copy is taken).
    init(_ bytes: UnsafeBufferPointer<UInt8>) {
        stream = nil; blockSize = bytes.count
        window = .allocate(capacity: max(1, bytes.count))
        _ = window.initialize(fromContentsOf: bytes)
        count = bytes.count
        if count >= 3, window[0] == 0xEF, window[1] == 0xBB, window[2] == 0xBF { position = 3 }
    }

    deinit { window.deallocate() }

    /// The stream's offset of the next byte (to come back to a value with a second scanner).
    var offset: Int64 { base + Int64(position) }

    /// Calls `body` with the bytes of `range`, a range from the last call.
    func withBytes<R>(_ range: Range<Int>, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        body(UnsafeBufferPointer(rebasing: window[range]))
    }

    // MARK: - Structure

    /// What the next value is, after any white space.
    mutating func peek() throws(Failure) -> Kind {
        mark = position
        try skipSpace()
        guard position < count else { throw .truncated(line: line) }
        switch window[position] {
        case UInt8(ascii: "{"): return .object
        case UInt8(ascii: "["): return .array
        case UInt8(ascii: "\""): return .string
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number
        case UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "n"): return .literal
        case let c: throw .syntax(line: line, "unexpected \(Self.describe(c))")
        }
    }

    /// Consumes the `{` of an object; iterate its members with ``nextKey()``.
    mutating func enterObject() throws(Failure) { mark = position; try expect(UInt8(ascii: "{")) }

    /// Consumes the `[` of an array; iterate its elements with ``nextElement()``.
    mutating func enterArray() throws(Failure) { mark = position; try expect(UInt8(ascii: "[")) }

    /// The next member's key as a range of raw bytes (escapes left as written: keys worth
    /// matching are plain ASCII), with its `:` consumed; nil once the closing `}` is consumed.
    mutating func nextKey() throws(Failure) -> Range<Int>? {
        mark = position
        try skipSpace()
        guard position < count else { throw .truncated(line: line) }
        if window[position] == UInt8(ascii: "}") { position += 1; return nil }
        if window[position] == UInt8(ascii: ",") { position += 1; try skipSpace() }
        guard position < count else { throw .truncated(line: line) }
        guard window[position] == UInt8(ascii: "\"") else { throw .syntax(line: line, "expected a key, found \(Self.describe(window[position]))") }
        mark = position
        let key = try quoted().range
        // The key stays where it is relative to `mark` if the colon needs another block.
        let (from, length) = (key.lowerBound - mark, key.count)
        try expect(UInt8(ascii: ":"))
        return (mark + from)..<(mark + from + length)
    }

    /// Whether another element follows in the array (its `,` consumed); false once the
    /// closing `]` is consumed.
    mutating func nextElement() throws(Failure) -> Bool {
        mark = position
        try skipSpace()
        guard position < count else { throw .truncated(line: line) }
        switch window[position] {
        case UInt8(ascii: "]"): position += 1; return false
        case UInt8(ascii: ","): position += 1; try skipSpace(); return true       // so `line` is the element's
        default: return true
        }
    }

    /// Whether the key `range` (from ``nextKey()``) is `name`.
    func key(_ range: Range<Int>, is name: StaticString) -> Bool {
        range.count == name.utf8CodeUnitCount && memcmp(window.baseAddress! + range.lowerBound, name.utf8Start, range.count) == 0
    }

    /// Skips one value of any kind, a whole object or array included, without decoding it.
    mutating func skipValue() throws(Failure) {
        switch try peek() {
        case .string: _ = try quoted()
        case .number, .literal: mark = position; _ = try tokenEnd()
        case .object, .array:
            var depth = 0
            while true {
                while position < count {
                    switch window[position] {
                    case UInt8(ascii: "\""): mark = position; _ = try quoted(); continue
                    case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
                    case UInt8(ascii: "}"), UInt8(ascii: "]"):
                        depth -= 1
                        if depth == 0 { position += 1; return }
                    case UInt8(ascii: "\n"): line += 1
                    default: break
                    }
                    position += 1
                }
                mark = position                 // nothing skipped is kept
                guard try more() != nil else { throw .truncated(line: line) }
            }
        }
    }

    // MARK: - Values

    /// The bytes between a string's quotes, and whether they hold escapes (then ``decode(_:escaped:)``
    /// is needed to read them). The closing quote is consumed.
    mutating func stringRange() throws(Failure) -> (range: Range<Int>, escaped: Bool) {
        mark = position
        return try quoted()
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
            mark = position
            let end = try tokenEnd()
            return Self.number(UnsafeBufferPointer(rebasing: window[mark..<end]))
        case .string:
            let (range, escaped) = try stringRange()
            return escaped ? nil : Self.number(UnsafeBufferPointer(rebasing: window[range]))
        default:
            try skipValue(); return nil
        }
    }

    /// The text of a string's bytes from ``stringRange()``.
    func decode(_ range: Range<Int>, escaped: Bool) -> String {
        let raw = UnsafeBufferPointer(rebasing: window[range])
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

    /// Makes room and reads the next block: drops the bytes before `mark`, or grows the window
    /// when one value fills it. Returns how far the bytes moved (indices held across the call
    /// go down by it), nil at the end of the stream.
    private mutating func more() throws(Failure) -> Int? {
        guard let stream else { return nil }
        let shift = mark
        if shift > 0 {
            UnsafeMutableRawPointer(window.baseAddress!).copyMemory(from: window.baseAddress! + shift, byteCount: count - shift)
            count -= shift; position -= shift; mark = 0; base += Int64(shift)
        }
        if window.count - count < blockSize / 2 {
            guard window.count < Self.longestValue else { throw .syntax(line: line, "a value over \(Self.longestValue >> 20) MiB") }
            let larger = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: 2 * window.count)
            UnsafeMutableRawPointer(larger.baseAddress!).copyMemory(from: window.baseAddress!, byteCount: count)
            window.deallocate()
            window = larger
        }
        let n: Int
        do { n = try stream.read(into: UnsafeMutableRawBufferPointer(rebasing: UnsafeMutableRawBufferPointer(window)[count...])) } catch { throw .read(error.description) }
        guard n > 0 else { return nil }
        count += n
        return shift
    }

    /// The bytes between a string's quotes (from the opening one at `position`).
    private mutating func quoted() throws(Failure) -> (range: Range<Int>, escaped: Bool) {
        try expect(UInt8(ascii: "\""))
        var start = position
        var escaped = false
        while true {
            while position < count {
                let c = window[position]
                if c == UInt8(ascii: "\"") { position += 1; return (start..<(position - 1), escaped) }
                if c == UInt8(ascii: "\\") { escaped = true; position += 2; continue }
                if c == UInt8(ascii: "\n") { throw .syntax(line: line, "a line break inside a string") }
                position += 1
            }
            guard let shift = try more() else { position = count; throw .truncated(line: line) }
            start -= shift
        }
    }

    private mutating func skipSpace() throws(Failure) {
        while true {
            while position < count {
                switch window[position] {
                case UInt8(ascii: "\n"): line += 1
                case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\r"): break
                default: return
                }
                position += 1
            }
            guard try more() != nil else { return }
        }
    }

    private mutating func expect(_ c: UInt8) throws(Failure) {
        try skipSpace()
        guard position < count else { throw .truncated(line: line) }
        guard window[position] == c else { throw .syntax(line: line, "expected \(Self.describe(c)), found \(Self.describe(window[position]))") }
        position += 1
    }

    /// Consumes a number or literal (`true`, `null`) that starts at `mark` and returns where it
    /// ends. A token that runs into the end of the bytes may be cut short, so that is a
    /// truncation, not a value.
    private mutating func tokenEnd() throws(Failure) -> Int {
        while true {
            while position < count {
                switch window[position] {
                case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                     UInt8(ascii: "-"), UInt8(ascii: "+"), UInt8(ascii: "."): position += 1
                default:
                    guard position > mark else { throw .syntax(line: line, "unexpected \(Self.describe(window[position]))") }
                    return position
                }
            }
            guard try more() != nil else { throw .truncated(line: line) }
        }
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
