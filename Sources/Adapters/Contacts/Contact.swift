import IngestCore

/// One card as the node's `contacts` item takes it (docs/node-api.md): no photo, no note.
struct Contact: Sendable, Equatable {
    /// An email address or phone number with its label.
    struct Entry: Sendable, Equatable {
        var value: String
        var type: String?
    }

    struct Address: Sendable, Equatable {
        var street: String?
        var city: String?
        var region: String?
        var postcode: String?
        var country: String?
        var type: String?
    }

    var uid: String?
    var fullName: String
    var given: String?
    var family: String?
    var nicknames: [String] = []
    var emails: [Entry] = []
    var phones: [Entry] = []
    var org: String?
    var title: String?
    var birthday: String?
    var addresses: [Address] = []
    var urls: [String] = []
    var categories: [String] = []

    /// The node's key is limited to 512 characters; a longer UID is hashed.
    static let maxKeyLength = 512

    /// The UID; without one, a hash of the name and the first email (lower-cased) or phone
    /// (digits and `+` only), so the same person exported twice gets the same key.
    var key: String {
        if let uid, !uid.isEmpty {
            return uid.utf8.count <= Contact.maxKeyLength ? uid : Digest.sha256Hex(uid, length: 32, prefix: "uid-sha256:")
        }
        let contact = emails.first.map { $0.value.lowercased() }
            ?? phones.first.map { String($0.value.unicodeScalars.filter { $0 == "+" || ("0"..."9").contains($0) }) } ?? ""
        return Digest.sha256Hex(fullName + "\u{1F}" + contact, length: 32, prefix: "vcard:")
    }

    /// The fields sent, named as in docs/node-api.md; absent optionals are left out.
    var fields: [String: JSONValue] {
        func entries(_ list: [Entry]) -> JSONValue {
            .array(list.map { entry in
                var object: [String: JSONValue] = ["value": .string(entry.value)]
                if let type = entry.type { object["type"] = .string(type) }
                return .object(object)
            })
        }
        func strings(_ list: [String]) -> JSONValue { list.isEmpty ? .null : .array(list.map(JSONValue.string)) }
        let addresses = self.addresses.map { address -> JSONValue in
            let parts: [(String, String?)] = [("street", address.street), ("city", address.city), ("region", address.region),
                                              ("postcode", address.postcode), ("country", address.country), ("type", address.type)]
            return .object(Dictionary(uniqueKeysWithValues: parts.compactMap { name, value in value.map { (name, JSONValue.string($0)) } }))
        }
        let all: [String: JSONValue] = [
            "full_name": .string(fullName), "given": JSONValue(given), "family": JSONValue(family),
            "nicknames": strings(nicknames), "emails": entries(emails), "phones": entries(phones),
            "org": JSONValue(org), "title": JSONValue(title), "birthday": JSONValue(birthday),
            "addresses": .array(addresses), "urls": strings(urls), "categories": strings(categories),
        ]
        return all.filter { $0.value != .null }
    }

    /// The `contacts` item; its version is a hash of `fields`, so only an edit that changes
    /// what is sent goes out again.
    var item: Item { Item(endpoint: .contacts, key: key, fields: fields) }
}
