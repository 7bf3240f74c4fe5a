/// An item's fields written straight into the body the node gets, in key order: for an adapter
/// that makes one item per file or row (a photo scan, a listening history), with no `JSONValue`
/// per field and no dictionary to build and sort. `key` and `version` go in at their sorted places
/// as the fields are added. `Item(endpoint:fields:)` gives the same body and version as
/// `Item(endpoint:key:fields:)` of the same fields.
public struct ItemFields {
    var body: [UInt8]
    let key: String
    let versioned: Bool
    /// The top-level members the version covers, as ranges of `body`.
    var hashed: [Range<Int>] = []
    /// Where the version's 16 placeholder digits are, once its member is written.
    var versionDigits: Range<Int>?
    private var keyWritten = false
    /// The member being written at the top level: where it starts and whether the version covers it.
    private var open: (start: Int, hashed: Bool)?
    /// Whether the next member at the current depth needs a comma before it.
    private var afterMember = false
    private var depth = 0
    private var lastName: StaticString?

    /// - Parameters:
    ///   - versioned: false for things that never change: no version is sent, as in `Item`.
    ///   - capacity: bytes to reserve, so the body is not copied as it grows.
    public init(key: String, versioned: Bool = true, capacity: Int = 256) {
        self.key = key
        self.versioned = versioned
        body = []
        body.reserveCapacity(capacity + key.utf8.count)
        body.append(UInt8(ascii: "{"))
        hashed.reserveCapacity(12)
    }

    public mutating func add(_ name: StaticString, _ value: String, unversioned: Bool = false) {
        member(name, unversioned: unversioned)
        JSONValue.encodeString(value, into: &body)
    }

    /// A string that needs no JSON escape (a time, digits), its bytes appended by `write`: no
    /// `String` made for it.
    public mutating func addString(_ name: StaticString, unversioned: Bool = false, writing write: (inout [UInt8]) -> Void) {
        member(name, unversioned: unversioned)
        body.append(UInt8(ascii: "\""))
        write(&body)
        body.append(UInt8(ascii: "\""))
    }

    /// A number as `JSONValue.double` encodes it (a whole one without a fraction; NaN and infinity as null).
    public mutating func add(_ name: StaticString, _ value: Double, unversioned: Bool = false) {
        member(name, unversioned: unversioned)
        JSONValue.encode(number: value, into: &body)
    }

    public mutating func add(_ name: StaticString, _ value: Int64, unversioned: Bool = false) {
        member(name, unversioned: unversioned)
        JSONValue.encode(integer: value, into: &body)
    }

    public mutating func add(_ name: StaticString, _ value: Bool, unversioned: Bool = false) {
        member(name, unversioned: unversioned)
        body.append(contentsOf: (value ? "true" : "false").utf8)
    }

    /// An object whose members `write` adds, in key order too.
    public mutating func addObject(_ name: StaticString, unversioned: Bool = false, _ write: (inout ItemFields) -> Void) {
        member(name, unversioned: unversioned)
        body.append(UInt8(ascii: "{"))
        let outer = lastName
        (depth, afterMember, lastName) = (depth + 1, false, nil)
        write(&self)
        (depth, afterMember, lastName) = (depth - 1, true, outer)
        body.append(UInt8(ascii: "}"))
    }

    /// Starts the member `name`: a comma after the one before, and at the top level `key` and
    /// `version` first where they sort before it.
    private mutating func member(_ name: StaticString, unversioned: Bool) {
        assert(lastName.map { ItemFields.precedes($0, name) } ?? true, "ItemFields members are added in strictly ascending key order")
        lastName = name
        if depth == 0 {
            closeMember()
            if !keyWritten, ItemFields.precedes("key", name) { writeKey() }
            if versioned, versionDigits == nil, ItemFields.precedes("version", name) { writeVersion() }
            separate()
            open = (body.count, !unversioned)
        } else {
            separate()
        }
        name.withUTF8Buffer { JSONValue.encodeString(bytes: $0, into: &body) }
        body.append(UInt8(ascii: ":"))
    }

    private mutating func separate() {
        if afterMember { body.append(UInt8(ascii: ",")) }
        afterMember = true
    }

    private mutating func closeMember() {
        if let open, open.hashed { hashed.append(open.start..<body.count) }
        open = nil
    }

    private mutating func writeKey() {
        separate()
        body.append(contentsOf: "\"key\":".utf8)
        JSONValue.encodeString(key, into: &body)
        keyWritten = true
    }

    /// `"version":"…"` with placeholder digits, filled in once every member is written.
    private mutating func writeVersion() {
        separate()
        body.append(contentsOf: "\"version\":\"".utf8)
        versionDigits = body.count..<(body.count + ItemTemplate.versionLength)
        body.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: ItemTemplate.versionLength))
        body.append(UInt8(ascii: "\""))
    }

    /// The finished body and its version.
    consuming func finish() -> (body: [UInt8], version: String?) {
        closeMember()
        if !keyWritten { writeKey() }
        if versioned, versionDigits == nil { writeVersion() }
        body.append(UInt8(ascii: "}"))
        guard let digits = versionDigits else { return (body, nil) }
        let version = hashed.withUnsafeBufferPointer { ItemTemplate.version(ofMembers: $0, in: body) }
        for (at, digit) in zip(digits, version.utf8) { body[at] = digit }
        return (body, version)
    }

    /// Byte order of two ASCII names, as `String`'s `<` orders them.
    private static func precedes(_ a: StaticString, _ b: StaticString) -> Bool {
        a.withUTF8Buffer { a in b.withUTF8Buffer { b in a.lexicographicallyPrecedes(b) } }
    }
}
