/// One content line of a card, `[group.]NAME *(;param) : value`, for the properties a contact is
/// built from. Every other property (PHOTO, NOTE, LOGO, SOUND, KEY, X-…) is passed over by name,
/// before its parameters or value are looked at.
struct VCardProperty {
    enum Name: CaseIterable {
        case begin, end, version, fn, n, nickname, email, tel, org, title, bday, adr, url, categories, uid, agent
        /// Apple's label for the grouped property beside it: `item1.X-ABLabel:School`.
        case abLabel

        /// The name as written in a card, upper case.
        var spelling: String {
            switch self {
            case .abLabel: "X-ABLABEL"
            default: String(describing: self).uppercased()
            }
        }
    }

    /// The parameters that change how the value is read or labelled.
    struct Parameters: Equatable {
        /// TYPE values in lower case, from `TYPE=a,b`, `TYPE=a;TYPE=b` and 2.1's bare `;A;B`.
        var types: [String] = []
        var quotedPrintable = false
        var base64 = false
        /// From CHARSET=; nil when absent or not one ``VCardText/Charset`` knows.
        var charset: VCardText.Charset?
        /// VALUE= in lower case (`uri`, `text`, `date`…).
        var valueType: String?
        /// Apple writes a birthday without a year as year 1604 with `X-APPLE-OMIT-YEAR=1604`.
        var appleOmitYear: String?
    }

    var group: String?
    var name: Name
    var parameters: Parameters
    var value: ArraySlice<UInt8>

    private static let spellings = Name.allCases.map { ($0, Array($0.spelling.utf8)) }

    /// The property on `line`; nil for a property that is not used, or a line that is not a content line.
    init?(_ line: [UInt8]) {
        let count = line.count
        var i = 0
        var dot = -1
        while i < count {
            let b = line[i]
            if b == UInt8(ascii: ";") || b == UInt8(ascii: ":") { break }
            if b == UInt8(ascii: ".") { dot = i }
            i += 1
        }
        guard i < count else { return nil }               // no colon: junk, or a 2.1 base64 line
        let nameBytes = line[(dot + 1)..<i]
        guard let name = VCardProperty.spellings.first(where: { VCardText.equalsIgnoringCase(nameBytes, $0.1) })?.0 else { return nil }
        self.name = name
        group = dot > 0 ? String(decoding: line[0..<dot], as: UTF8.self).lowercased() : nil
        parameters = Parameters()
        while i < count, line[i] == UInt8(ascii: ";") {
            i += 1
            let start = i
            var quoted = false
            while i < count {
                let b = line[i]
                if b == UInt8(ascii: "\"") { quoted.toggle() } else if !quoted, b == UInt8(ascii: ";") || b == UInt8(ascii: ":") { break }
                i += 1
            }
            parameters.apply(line[start..<i])
        }
        guard i < count else { return nil }
        value = line[(i + 1)..<count]
    }
}

extension VCardProperty.Parameters {
    private static let type = Array("TYPE".utf8), encoding = Array("ENCODING".utf8), charset = Array("CHARSET".utf8)
    private static let value = Array("VALUE".utf8), appleOmitYear = Array("X-APPLE-OMIT-YEAR".utf8)
    private static let quotedPrintable = Array("QUOTED-PRINTABLE".utf8), base64 = Array("BASE64".utf8), b = Array("B".utf8)
    private static let eightBit = Array("8BIT".utf8), sevenBit = Array("7BIT".utf8)

    /// One `KEY=v1,v2` parameter, or a bare 2.1 one (`HOME`, `QUOTED-PRINTABLE`, `BASE64`).
    /// Works on the bytes: every line of every card has parameters to look at.
    mutating func apply(_ bytes: ArraySlice<UInt8>) {
        guard let equals = bytes.firstIndex(of: UInt8(ascii: "=")) else {
            let bare = trimmed(bytes)
            if VCardText.equalsIgnoringCase(bare, Self.quotedPrintable) { quotedPrintable = true }
            else if VCardText.equalsIgnoringCase(bare, Self.base64) || VCardText.equalsIgnoringCase(bare, Self.b) { base64 = true }
            else if !bare.isEmpty, !VCardText.equalsIgnoringCase(bare, Self.eightBit), !VCardText.equalsIgnoringCase(bare, Self.sevenBit) {
                types.append(lowercased(bare))
            }
            return
        }
        let key = trimmed(bytes[..<equals])
        let rest = bytes[(equals + 1)...]
        if VCardText.equalsIgnoringCase(key, Self.type) {
            // Quotes only protect `,;:` inside a value (`TYPE="home,work"` is two types), so they are dropped.
            for part in rest.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: true) {
                let value = trimmed(part)
                if !value.isEmpty { types.append(lowercased(value)) }
            }
        } else if VCardText.equalsIgnoringCase(key, Self.encoding) {
            let value = trimmed(rest)
            if VCardText.equalsIgnoringCase(value, Self.quotedPrintable) { quotedPrintable = true }
            else if VCardText.equalsIgnoringCase(value, Self.base64) || VCardText.equalsIgnoringCase(value, Self.b) { base64 = true }
        } else if VCardText.equalsIgnoringCase(key, Self.charset) {
            charset = VCardText.Charset(parameter: String(decoding: trimmed(rest), as: UTF8.self))
        } else if VCardText.equalsIgnoringCase(key, Self.value) {
            valueType = lowercased(trimmed(rest))
        } else if VCardText.equalsIgnoringCase(key, Self.appleOmitYear) {
            appleOmitYear = String(decoding: trimmed(rest), as: UTF8.self)
        }
    }

    /// Without surrounding spaces, tabs and double quotes.
    private func trimmed(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        var slice = bytes
        while let first = slice.first, first == 0x20 || first == 0x09 || first == 0x22 { slice.removeFirst() }
        while let last = slice.last, last == 0x20 || last == 0x09 || last == 0x22 { slice.removeLast() }
        return slice
    }

    private func lowercased(_ bytes: ArraySlice<UInt8>) -> String {
        String(decoding: bytes.map { $0 >= 0x41 && $0 <= 0x5A ? $0 + 0x20 : $0 }, as: UTF8.self)
    }
}
