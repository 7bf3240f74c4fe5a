/// Reads the cards of one .vcf file (vCard 2.1, 3.0 or 4.0, any number of cards) into contacts.
///
/// A card that cannot be read (no END:VCARD, no name, text that is not valid in its charset) is
/// skipped with a problem naming its first line and UID; the cards around it are still read.
enum VCardParser {
    struct Result: Sendable {
        var contacts: [Contact] = []
        /// One line per card skipped, or per value left out of a card, naming the line and UID.
        var problems: [String] = []
        /// BEGIN:VCARD lines seen at the top level: 0 means the file is not a vCard file at all.
        var cards = 0
    }

    static func parse(_ input: [UInt8]) -> Result {
        let bytes = utf8FromUTF16(input) ?? input
        return bytes.withUnsafeBufferPointer { buffer in
            var reader = VCardLineReader(buffer)
            var result = Result()
            var card: VCardCard?
            var nested = 0           // depth of 2.1 AGENT cards inside the open card: skipped
            var uids = Set<String>()

            while reader.next() {
                guard let property = VCardProperty(reader.line) else { continue }
                switch property.name {
                case .begin where isVCard(property.value):
                    if let open = card {
                        if nested > 0 || open.expectsAgentCard { nested += 1; continue }
                        result.problems.append("\(open.label): no END:VCARD before the next BEGIN:VCARD; skipped")
                    }
                    result.cards += 1
                    card = VCardCard(line: reader.lineNumber)
                    reader.keepsFoldingWhitespace = false
                case .end where isVCard(property.value):
                    if nested > 0 { nested -= 1; continue }
                    guard let open = card else { continue }
                    card = nil
                    switch open.build() {
                    case .failure(let reason):
                        result.problems.append("\(open.label): \(reason); skipped")
                    case .success(let (contact, notes)):
                        result.problems += notes.map { "\(open.label): \($0)" }
                        if let uid = contact.uid, !uids.insert(uid).inserted {
                            result.problems.append("\(open.label): UID already used by an earlier card in this file; skipped")
                        } else {
                            result.contacts.append(contact)
                        }
                    }
                case .begin, .end:
                    continue
                default:
                    guard nested == 0, card != nil else { continue }
                    card!.add(property, line: reader.lineNumber)
                    if property.name == .version { reader.keepsFoldingWhitespace = card!.version == .v21 }
                }
            }
            if let open = card { result.problems.append("\(open.label): no END:VCARD before the end of the file; skipped") }
            return result
        }
    }

    private static let vcard = Array("VCARD".utf8)
    private static func isVCard(_ value: ArraySlice<UInt8>) -> Bool {
        var trimmed = value
        while let last = trimmed.last, last == 0x20 || last == 0x09 { trimmed.removeLast() }
        return VCardText.equalsIgnoringCase(trimmed, vcard)
    }

    /// Old macOS Address Book exports are UTF-16 with a byte order mark; everything else is read as bytes.
    private static func utf8FromUTF16(_ bytes: [UInt8]) -> [UInt8]? {
        guard bytes.count >= 2 else { return nil }
        let littleEndian: Bool
        switch (bytes[0], bytes[1]) {
        case (0xFF, 0xFE): littleEndian = true
        case (0xFE, 0xFF): littleEndian = false
        default: return nil
        }
        var units: [UInt16] = []
        units.reserveCapacity(bytes.count / 2)
        var i = 2
        while i + 1 < bytes.count {
            units.append(littleEndian ? UInt16(bytes[i]) | UInt16(bytes[i + 1]) << 8 : UInt16(bytes[i]) << 8 | UInt16(bytes[i + 1]))
            i += 2
        }
        return Array(String(decoding: units, as: UTF16.self).utf8)
    }
}

/// The properties of one card as they are read, turned into a ``Contact`` at END:VCARD.
struct VCardCard {
    enum Version { case v21, v30, v40 }

    /// An EMAIL, TEL, ADR or URL value with its group, for X-ABLabel to find.
    private struct Labelled<Value> {
        var group: String?
        var value: Value
        var types: [String]
    }

    let line: Int
    private(set) var version = Version.v30
    /// Set by a 2.1 `AGENT:` with an empty value: the next BEGIN:VCARD is the agent's card.
    private(set) var expectsAgentCard = false
    /// Why the card cannot be used; the first reason found.
    private var problem: String?
    /// Values left out of an otherwise good card.
    private var notes: [String] = []

    private var uid: String?
    private var formattedName: String?
    private var name: [[String]]?
    private var nicknames: [String] = []
    private var emails: [Labelled<String>] = []
    private var phones: [Labelled<String>] = []
    private var addresses: [Labelled<[[String]]>] = []
    private var urls: [String] = []
    private var org: String?
    private var title: String?
    private var birthday: String?
    private var categories: [String] = []
    private var labels: [String: String] = [:]

    init(line: Int) { self.line = line }

    /// `card at line N (UID u)` for warnings.
    var label: String { "card at line \(line)" + (uid.map { " (UID \($0))" } ?? "") }

    mutating func add(_ property: VCardProperty, line: Int) {
        expectsAgentCard = false
        let p = property.parameters
        switch property.name {
        case .version:
            switch String(decoding: property.value, as: UTF8.self).filter({ $0 != " " }) {
            case "2.1": version = .v21
            case "4.0": version = .v40
            default: version = .v30
            }
            return
        case .agent:
            expectsAgentCard = property.value.isEmpty
            return
        default: break
        }
        guard !p.base64 else { return }       // a text value in base64 is not something exporters write
        let raw = p.quotedPrintable ? VCardText.decodeQuotedPrintable(property.value)[...] : property.value
        let charset = p.charset ?? (version == .v21 ? .utf8OrWindows1252 : .utf8)

        func text(_ bytes: ArraySlice<UInt8>) -> String? {
            guard let string = VCardText.string(VCardText.trimmed(VCardText.unescape(bytes)), charset) else {
                if problem == nil { problem = "\(property.name.spelling) on line \(line) is not valid \(charset == .utf8 ? "UTF-8" : "text")" }
                return nil
            }
            return string
        }
        /// A comma-separated list (3.0, 4.0); 2.1 has no lists, so a comma there is text.
        func list(_ bytes: ArraySlice<UInt8>) -> [String]? {
            var values: [String] = []
            for part in version == .v21 ? [bytes] : VCardText.split(bytes, on: UInt8(ascii: ",")) {
                guard let value = text(part) else { return nil }
                if !value.isEmpty { values.append(value) }
            }
            return values
        }
        /// `;`-separated components, each a list: N, ADR, ORG.
        func components(_ bytes: ArraySlice<UInt8>) -> [[String]]? {
            var out: [[String]] = []
            for part in VCardText.split(bytes, on: UInt8(ascii: ";")) {
                guard let values = list(part) else { return nil }
                out.append(values)
            }
            return out
        }

        switch property.name {
        case .uid:
            if uid == nil, let value = text(raw), !value.isEmpty { uid = value }
        case .fn:
            if formattedName == nil, let value = text(raw), !value.isEmpty { formattedName = value }
        case .n:
            if name == nil { name = components(raw) }
        case .nickname:
            nicknames += list(raw) ?? []
        case .email:
            if var value = text(raw), !value.isEmpty {
                if VCardCard.hasPrefix(value, "mailto:") { value.removeFirst(7) }
                emails.append(Labelled(group: property.group, value: value, types: p.types))
            }
        case .tel:
            if var value = text(raw), !value.isEmpty {
                if VCardCard.hasPrefix(value, "tel:") { value.removeFirst(4) }     // 4.0 VALUE=uri
                phones.append(Labelled(group: property.group, value: value, types: p.types))
            }
        case .adr:
            if let parts = components(raw), parts.contains(where: { !$0.isEmpty }) {
                addresses.append(Labelled(group: property.group, value: parts, types: p.types))
            }
        case .url:
            if let value = text(raw), !value.isEmpty, !urls.contains(value) { urls.append(value) }
        case .org:
            if org == nil, let parts = components(raw) {
                let joined = parts.map { $0.joined(separator: " ") }.filter { !$0.isEmpty }.joined(separator: ", ")
                if !joined.isEmpty { org = joined }
            }
        case .title:
            if title == nil, let value = text(raw), !value.isEmpty { title = value }
        case .bday:
            if birthday == nil, let value = text(raw), !value.isEmpty {
                if p.valueType != "text", let date = VCardBirthday.parse(value, appleOmitYear: p.appleOmitYear) { birthday = date }
                else { notes.append("BDAY \"\(value)\" on line \(line) is not a date with a month and day; not sent") }
            }
        case .categories:
            for value in list(raw) ?? [] where !categories.contains(value) { categories.append(value) }
        case .abLabel:
            if let group = property.group, let value = text(raw), !value.isEmpty { labels[group] = VCardCard.appleLabel(value) }
        case .version, .agent, .begin, .end:
            break
        }
    }

    /// The contact, with notes on values left out; or why the card cannot be used.
    func build() -> Result<(Contact, [String]), CardProblem> {
        if let problem { return .failure(CardProblem(problem)) }
        func joined(_ values: [String]?) -> String? {
            guard let values, !values.isEmpty else { return nil }
            return values.joined(separator: " ")
        }
        let n = name ?? []
        func component(_ i: Int) -> [String] { i < n.count ? n[i] : [] }
        // N is family; given; additional; prefixes; suffixes.
        let fromName = [component(3), component(1), component(2), component(0), component(4)].flatMap { $0 }.joined(separator: " ")
        guard let fullName = formattedName ?? (fromName.isEmpty ? nil : fromName) else {
            return .failure(CardProblem("no name (FN or N)"))
        }
        var contact = Contact(uid: uid, fullName: fullName, given: joined(component(1)), family: joined(component(0)))
        contact.nicknames = nicknames
        contact.emails = emails.map { Contact.Entry(value: $0.value, type: type(of: $0)) }
        contact.phones = phones.map { Contact.Entry(value: $0.value, type: type(of: $0)) }
        contact.addresses = addresses.map { address in
            // ADR is PO box; extended address; street; locality; region; postal code; country.
            func part(_ i: Int) -> String? {
                guard i < address.value.count, !address.value[i].isEmpty else { return nil }
                return address.value[i].joined(separator: ", ")
            }
            let street = [part(2), part(1), part(0)].compactMap { $0 }.joined(separator: ", ")
            return Contact.Address(street: street.isEmpty ? nil : street, city: part(3), region: part(4), postcode: part(5),
                                   country: part(6), type: type(of: address))
        }
        contact.urls = urls
        contact.org = org
        contact.title = title
        contact.birthday = birthday
        contact.categories = categories
        return .success((contact, notes))
    }

    /// The label a user sees: Apple's X-ABLabel of the property's group, else its TYPE values
    /// without the ones that say nothing to a reader (`pref`, `internet`, `x400`, the ADR defaults,
    /// and `voice` beside another type), joined with commas: `home,work`.
    private func type<Value>(of entry: Labelled<Value>) -> String? {
        if let group = entry.group, let label = labels[group] { return label }
        var kept: [String] = []
        for type in entry.types where !VCardCard.uninformativeTypes.contains(type) && !kept.contains(type) { kept.append(type) }
        if kept.count > 1 { kept.removeAll { $0 == "voice" } }
        return kept.isEmpty ? nil : kept.joined(separator: ",")
    }
    private static let uninformativeTypes: Set<String> = ["pref", "internet", "x400", "dom", "intl", "postal", "parcel"]

    /// `prefix` (ASCII, lower case) at the start of `value` in any case, without lower-casing all of `value`.
    private static func hasPrefix(_ value: String, _ prefix: String) -> Bool {
        VCardText.equalsIgnoringCase(ArraySlice(value.utf8.prefix(prefix.utf8.count)), Array(prefix.uppercased().utf8))
    }

    /// Apple's built-in labels are written `_$!<Mobile>!$_`; custom ones as typed.
    private static func appleLabel(_ value: String) -> String {
        guard value.hasPrefix("_$!<"), value.hasSuffix(">!$_"), value.count > 8 else { return value }
        return String(value.dropFirst(4).dropLast(4)).lowercased()
    }
}

/// Why a card was skipped.
struct CardProblem: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
