/// One observation for the node: the fields of one entry of a batch's `items` array.
///
/// `key`, `version` and `deleted` are the node's idempotency fields; `fields` holds the
/// rest exactly as docs/node-api.md names them. Nothing else leaves the machine.
public struct Item: Sendable, Hashable {
    public var endpoint: Endpoint
    public var key: String
    public var version: String?
    public var deleted: Bool
    public var fields: [String: JSONValue]

    /// - Parameters:
    ///   - version: the content state; `nil` lets `Item` use a hash of `fields`, so an edit
    ///     goes out as an update and an unchanged re-scan is a duplicate.
    ///   - versioned: false for things that never change (a capture): no version is sent.
    public init(endpoint: Endpoint, key: String, version: String? = nil, versioned: Bool = true, fields: [String: JSONValue]) {
        self.endpoint = endpoint
        self.key = key
        self.fields = fields.filter { $0.value != .null || Item.nullableFields.contains($0.key) }
        self.version = versioned ? version ?? Digest.sha256Hex(JSONValue.object(self.fields).encoded, length: 16) : nil
        self.deleted = false
    }

    /// The thing is gone at the source.
    public static func tombstone(endpoint: Endpoint, key: String) -> Item {
        var item = Item(endpoint: endpoint, key: key, versioned: false, fields: [:])
        item.deleted = true
        return item
    }

    /// Fields whose `null` means something (an open visit's `departure`), so they are kept.
    static let nullableFields: Set<String> = ["arrival", "departure"]

    /// The item as it appears in the request body.
    public var json: [UInt8] {
        var object = fields
        object["key"] = .string(key)
        if let version { object["version"] = .string(version) }
        if deleted { object["deleted"] = .bool(true) }
        return JSONValue.object(object).encoded
    }
}
