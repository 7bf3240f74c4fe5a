/// Items of one endpoint that share most of their fields (the occurrences of a recurring event):
/// the shared members are encoded once, and each item encodes only its own few, its key and its
/// version. An item made so has the same body and version as `Item(endpoint:key:fields:)` of
/// the shared and varying fields together.
public struct ItemTemplate: Sendable {
    let shape: Shape

    /// The members of the body in key order: encoded once, or filled in per item.
    enum Slot: Sendable {
        /// Shared members (several in a row are one slot, joined by commas), encoded.
        case shared([UInt8])
        /// The value at this index of the item's varying values.
        case varying(Int, name: [UInt8])
        case key, version
    }

    /// What every item of the template refers to (one reference per item).
    final class Shape: Sendable {
        let endpoint: Endpoint
        /// The shared fields in key order, nulls left out as `Item` leaves them out.
        let shared: [(key: String, value: JSONValue)]
        let varying: [String]
        /// The body's members in key order.
        let body: [Slot]
        /// Room for an item's body but its key: a buffer that neither grows nor holds much unused.
        let capacity: Int

        init(endpoint: Endpoint, shared: [(key: String, value: JSONValue)], varying: [String]) {
            self.endpoint = endpoint; self.shared = shared; self.varying = varying
            // The shared members are encoded in their order; the per-item ones (in key order too)
            // go between them where they sort, each ending the run of shared ones before it.
            var own: [(name: String, slot: Slot)] = varying.enumerated().map { i, name in
                var member: [UInt8] = []
                Shape.appendMemberName(name, to: &member)
                return (name, .varying(i, name: member))
            } + [("key", .key), ("version", .version)]
            own.sort { $0.name < $1.name }
            var slots: [Slot] = [], run: [UInt8] = []
            var next = own[...]
            for (name, value) in shared {
                while let o = next.first, o.name < name {
                    if !run.isEmpty { slots.append(.shared(run)); run = [] }
                    slots.append(o.slot); next.removeFirst()
                }
                if !run.isEmpty { run.append(UInt8(ascii: ",")) }
                Shape.appendMemberName(name, to: &run)
                value.encode(into: &run)
            }
            if !run.isEmpty { slots.append(.shared(run)) }
            body = slots + next.map(\.slot)
            let sharedBytes = body.reduce(0) { if case .shared(let bytes) = $1 { $0 + bytes.count } else { $0 } }
            capacity = sharedBytes + 64 * varying.count + 48
        }

        /// `"name":`
        private static func appendMemberName(_ name: String, to bytes: inout [UInt8]) {
            JSONValue.encodeString(name, into: &bytes)
            bytes.append(UInt8(ascii: ":"))
        }
    }

    /// - Parameters:
    ///   - shared: the fields every item has; a `null` one is left out.
    ///   - varying: the names of the fields each item gives its own value of, in the order
    ///     `item(key:_:)` takes them; none of them in `shared`, none `key` or `version`.
    public init(endpoint: Endpoint, shared: [String: JSONValue], varying: [String]) {
        self.init(endpoint: endpoint, sortedShared: shared.filter { $0.value != .null }.sorted { $0.key < $1.key }, varying: varying)
    }

    /// A template of shared fields given in strictly ascending key order, none of them `null`: no
    /// dictionary to build and sort (a calendar makes one per event).
    public init(endpoint: Endpoint, sortedShared shared: [(key: String, value: JSONValue)], varying: [String]) {
        precondition(Set(varying).count == varying.count && varying.allSatisfy { name in !shared.contains { $0.key == name } && name != "key" && name != "version" },
                     "an ItemTemplate's varying fields are distinct and not shared")
        assert(zip(shared, shared.dropFirst()).allSatisfy { $0.key < $1.key } && !shared.contains { $0.value == .null },
               "sortedShared is in strictly ascending key order, none null")
        shape = Shape(endpoint: endpoint, shared: shared, varying: varying)
    }

    /// Hex digits of an item's version (as `Item` makes it).
    static let versionLength = 16

    /// The item with `values` for the varying fields (in their order). A `null` among them is
    /// left out, as `Item` leaves it out.
    public func item(key: String, _ values: [JSONValue]) -> Item {
        precondition(values.count == shape.varying.count, "one value per varying field")
        guard !values.contains(.null) else {
            var fields = Dictionary(uniqueKeysWithValues: shape.shared)
            for (name, value) in zip(shape.varying, values) { fields[name] = value }
            return Item(endpoint: shape.endpoint, key: key, fields: fields)
        }
        return assemble(key: key) { index, out in values[index].encode(into: &out) }
    }

    /// The item whose varying fields are strings that need no JSON escape, `write(index, &out)`
    /// appending the bytes of the one at `index`: no `String` made per value (a calendar's
    /// start and end of every occurrence).
    public func item(key: String, writingStrings write: (Int, inout [UInt8]) -> Void) -> Item {
        assemble(key: key) { index, out in
            out.append(UInt8(ascii: "\""))
            write(index, &out)
            out.append(UInt8(ascii: "\""))
        }
    }

    /// The body, each varying value written by `value(index, &out)`, and its version.
    private func assemble(key: String, writing value: (Int, inout [UInt8]) -> Void) -> Item {
        var body: [UInt8] = []
        body.reserveCapacity(shape.capacity + key.utf8.count)
        // The body, where each member but key and version is noted: the version's object is those
        // members copied into a buffer on the stack, and hashed.
        let (versionAt, version) = withUnsafeTemporaryAllocation(of: Range<Int>.self, capacity: shape.body.count) { hashed in
            var (versionAt, members) = (0, 0)
            body.append(UInt8(ascii: "{"))
            for (i, slot) in shape.body.enumerated() {
                if i > 0 { body.append(UInt8(ascii: ",")) }
                let start = body.count
                switch slot {
                case .shared(let bytes): body.append(contentsOf: bytes)
                case .varying(let index, let name): body.append(contentsOf: name); value(index, &body)
                case .key: body.append(contentsOf: "\"key\":".utf8); JSONValue.encodeString(key, into: &body); continue
                case .version:
                    body.append(contentsOf: "\"version\":\"".utf8)
                    versionAt = body.count
                    body.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: ItemTemplate.versionLength))
                    body.append(UInt8(ascii: "\"")); continue
                }
                hashed[members] = start..<body.count; members += 1
            }
            body.append(UInt8(ascii: "}"))
            return (versionAt, ItemTemplate.version(ofMembers: UnsafeBufferPointer(rebasing: hashed[..<members]), in: body))
        }
        body.replaceSubrange(versionAt..<versionAt + ItemTemplate.versionLength, with: version.utf8)
        return Item(endpoint: shape.endpoint, key: key, version: version, json: body, content: .template(shape))
    }

    /// The version of `{…}` of the members at `ranges` of `bytes` (also ``ItemFields``').
    static func version(ofMembers ranges: UnsafeBufferPointer<Range<Int>>, in bytes: [UInt8]) -> String {
        let count = ranges.reduce(2 + max(ranges.count - 1, 0)) { $0 + $1.count }
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: count) { object in
            bytes.withUnsafeBufferPointer { bytes in
                var at = 0
                object[at] = UInt8(ascii: "{"); at += 1
                for (i, range) in ranges.enumerated() {
                    if i > 0 { object[at] = UInt8(ascii: ","); at += 1 }
                    (object.baseAddress! + at).initialize(from: bytes.baseAddress! + range.lowerBound, count: range.count)
                    at += range.count
                }
                object[at] = UInt8(ascii: "}")
            }
            return Digest.sha256Hex(UnsafeBufferPointer(object), length: versionLength)
        }
    }
}
