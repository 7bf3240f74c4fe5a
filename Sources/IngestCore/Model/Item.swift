/// One observation for the node: the fields of one entry of a batch's `items` array.
///
/// `key`, `version` and `deleted` are the node's idempotency fields; `fields` holds the
/// rest exactly as docs/node-api.md names them. Nothing else leaves the machine.
public struct Item: Sendable, Hashable {
    public let endpoint: Endpoint
    public let key: String
    public let version: String?
    public let deleted: Bool
    /// The item as it appears in the request body, encoded once when the item is made (often on
    /// an adapter's worker thread) rather than on the single thread that queues it.
    public let json: [UInt8]
    private let content: Content

    /// What the body was made from, for `fields`: the fields themselves, an ``ItemTemplate``'s
    /// shape, whose varying fields are read back from the body, or nothing kept (``ItemFields``):
    /// every field is read back (no dictionary or values kept per item).
    enum Content: Sendable {
        case fields([String: JSONValue])
        case template(ItemTemplate.Shape)
        case written
    }

    /// The fields sent besides key, version and deleted (`null`s left out unless kept).
    public var fields: [String: JSONValue] {
        switch content {
        case .fields(let fields): return fields
        case .template(let shape):
            var fields = Dictionary(uniqueKeysWithValues: shape.shared)
            let body = JSONValue.parse(json)
            for name in shape.varying { fields[name] = body?[name] }
            return fields
        case .written:
            guard case .object(var fields) = JSONValue.parse(json) else { return [:] }
            fields["key"] = nil
            fields["version"] = nil
            return fields
        }
    }

    /// - Parameters:
    ///   - version: the content state; `nil` lets `Item` use a hash of `fields`, so an edit
    ///     goes out as an update and an unchanged re-scan is a duplicate.
    ///   - versioned: false for things that never change (a capture): no version is sent.
    ///   - unversioned: fields sent but left out of that hash (a photo's file name: a renamed
    ///     copy is a duplicate, not an update).
    ///   - keepingNull: fields whose `null` means something (an open visit's `departure`) and is
    ///     sent; other `null` fields are left out.
    public init(endpoint: Endpoint, key: String, version: String? = nil, versioned: Bool = true,
                fields: [String: JSONValue], unversioned: Set<String> = [], keepingNull: Set<String> = []) {
        let kept = fields.values.contains(.null) ? fields.filter { $0.value != .null || keepingNull.contains($0.key) } : fields
        // Each member is encoded once; the version hashes the object of the versioned members,
        // and the body is the same members with key/version spliced in at their sorted place.
        let members = JSONValue.encodedMembers(kept)
        let version = versioned ? version ?? Digest.sha256Hex(JSONValue.object(members, excluding: unversioned), length: 16) : nil
        var extra: [(String, JSONValue)] = [("key", .string(key))]
        if let version { extra.append(("version", .string(version))) }
        self.endpoint = endpoint; self.key = key; self.version = version; self.deleted = false; self.content = .fields(kept)
        self.json = JSONValue.object(members, merging: extra)
    }

    /// An item whose fields were written in key order straight into its body (one per photo of a scan).
    public init(endpoint: Endpoint, fields: consuming ItemFields) {
        let key = fields.key
        let (json, version) = fields.finish()
        self.init(endpoint: endpoint, key: key, version: version, json: json, content: .written)
    }

    /// An item whose body is already made (by an ``ItemTemplate`` or ``ItemFields``).
    init(endpoint: Endpoint, key: String, version: String?, json: [UInt8], content: Content) {
        self.endpoint = endpoint; self.key = key; self.version = version; self.deleted = false; self.json = json; self.content = content
    }

    private init(endpoint: Endpoint, key: String, version: String?, deleted: Bool, fields: [String: JSONValue]) {
        self.endpoint = endpoint; self.key = key; self.version = version; self.deleted = deleted; self.content = .fields(fields)
        var object = fields
        object["key"] = .string(key)
        if let version { object["version"] = .string(version) }
        if deleted { object["deleted"] = .bool(true) }
        self.json = JSONValue.object(object).encoded
    }

    /// The thing is gone at the source.
    public static func tombstone(endpoint: Endpoint, key: String) -> Item {
        Item(endpoint: endpoint, key: key, version: nil, deleted: true, fields: [:])
    }

    /// The body says what the fields are (its encoding is deterministic), so it stands for them.
    public static func == (a: Item, b: Item) -> Bool {
        a.endpoint == b.endpoint && a.key == b.key && a.version == b.version && a.deleted == b.deleted && a.json == b.json
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(endpoint); hasher.combine(key); hasher.combine(version); hasher.combine(deleted); hasher.combine(json)
    }
}
