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
        /// The shared fields, nulls left out as `Item` leaves them out.
        let shared: [String: JSONValue]
        let varying: [String]
        /// The body's members and the version's (the same without key and version).
        let body: [Slot], hashed: [Slot]

        init(endpoint: Endpoint, shared: [String: JSONValue], varying: [String]) {
            self.endpoint = endpoint; self.shared = shared; self.varying = varying
            // Each shared member encoded once, in key order; the version's slots are the body's
            // without key and version.
            let members: [(name: String, slot: Slot)] = (Array(shared.keys) + varying + ["key", "version"]).sorted().map { name in
                if name == "key" { return (name, .key) }
                if name == "version" { return (name, .version) }
                if let i = varying.firstIndex(of: name) { return (name, .varying(i, name: Shape.memberName(name))) }
                var member = Shape.memberName(name)
                shared[name]!.encode(into: &member)
                return (name, .shared(member))
            }
            body = Shape.joined(members.map(\.slot))
            hashed = Shape.joined(members.filter { $0.name != "key" && $0.name != "version" }.map(\.slot))
        }

        /// Shared members in a row made one slot, joined by commas.
        private static func joined(_ slots: [Slot]) -> [Slot] {
            var out: [Slot] = []
            for slot in slots {
                if case .shared(let member) = slot, case .shared(let run) = out.last { out[out.count - 1] = .shared(run + [UInt8(ascii: ",")] + member) }
                else { out.append(slot) }
            }
            return out
        }

        private static func memberName(_ name: String) -> [UInt8] {
            var bytes: [UInt8] = []
            JSONValue.encodeString(name, into: &bytes)
            bytes.append(UInt8(ascii: ":"))
            return bytes
        }
    }

    /// - Parameters:
    ///   - shared: the fields every item has; a `null` one is left out.
    ///   - varying: the names of the fields each item gives its own value of, in the order
    ///     `item(key:_:)` takes them; none of them in `shared`, none `key` or `version`.
    public init(endpoint: Endpoint, shared: [String: JSONValue], varying: [String]) {
        precondition(Set(varying).count == varying.count && varying.allSatisfy { shared[$0] == nil && $0 != "key" && $0 != "version" },
                     "an ItemTemplate's varying fields are distinct and not shared")
        shape = Shape(endpoint: endpoint, shared: shared.filter { $0.value != .null }, varying: varying)
    }

    /// The item with `values` for the varying fields (in their order). A `null` among them is
    /// left out, as `Item` leaves it out.
    public func item(key: String, _ values: [JSONValue]) -> Item {
        precondition(values.count == shape.varying.count, "one value per varying field")
        guard !values.contains(.null) else {
            var fields = shape.shared
            for (name, value) in zip(shape.varying, values) { fields[name] = value }
            return Item(endpoint: shape.endpoint, key: key, fields: fields)
        }
        var hashed: [UInt8] = []
        hashed.reserveCapacity(256)
        write(shape.hashed, into: &hashed, values, key: "", version: "")
        let version = Digest.sha256Hex(hashed, length: 16)
        var body: [UInt8] = []
        body.reserveCapacity(hashed.count + key.utf8.count + 40)
        write(shape.body, into: &body, values, key: key, version: version)
        return Item(endpoint: shape.endpoint, key: key, version: version, json: body, content: .template(shape, values))
    }

    private func write(_ slots: [Slot], into out: inout [UInt8], _ values: [JSONValue], key: String, version: String) {
        out.append(UInt8(ascii: "{"))
        for (i, slot) in slots.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            switch slot {
            case .shared(let bytes): out.append(contentsOf: bytes)
            case .varying(let index, let name): out.append(contentsOf: name); values[index].encode(into: &out)
            case .key: out.append(contentsOf: "\"key\":".utf8); JSONValue.encodeString(key, into: &out)
            case .version: out.append(contentsOf: "\"version\":".utf8); JSONValue.encodeString(version, into: &out)
            }
        }
        out.append(UInt8(ascii: "}"))
    }
}
