/// One content line of a card, `[group.]NAME *(;param) : value`, for the properties a contact is
/// built from. Every other property (PHOTO, NOTE, LOGO, SOUND, KEY, X-…) is passed over by name,
/// before its parameters or value are looked at.
struct VCardProperty {
    enum Name: CaseIterable {
        case begin, end, version, fn, n, nickname, email, tel, org, title, bday, adr, url, categories, uid, agent
        /// Apple's label for the grouped property beside it: `item1.X-ABLabel:School`.
        case abLabel

        var spelling: [UInt8] {
            switch self {
            case .abLabel: Array("X-ABLABEL".utf8)
            default: Array(String(describing: self).uppercased().utf8)
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

    private static let spellings = Name.allCases.map { ($0, $0.spelling) }

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
    /// One `KEY=v1,v2` parameter, or a bare 2.1 one (`HOME`, `QUOTED-PRINTABLE`, `BASE64`).
    mutating func apply(_ bytes: ArraySlice<UInt8>) {
        let text = String(decoding: bytes, as: UTF8.self)
        guard let equals = text.firstIndex(of: "=") else {
            switch text.uppercased() {
            case "QUOTED-PRINTABLE": quotedPrintable = true
            case "BASE64", "B": base64 = true
            case "8BIT", "7BIT", "": break
            default: types.append(text.lowercased())
            }
            return
        }
        let key = text[..<equals].trimmingSpaces.uppercased()
        // Quotes only protect `,;:` inside a value (`TYPE="home,work"` is two types), so they are dropped.
        let values = text[text.index(after: equals)...].filter { $0 != "\"" }.split(separator: ",").map { $0.trimmingSpaces }
        switch key {
        case "TYPE":
            types += values.filter { !$0.isEmpty }.map { $0.lowercased() }
        case "ENCODING":
            switch values.first?.uppercased() {
            case "QUOTED-PRINTABLE": quotedPrintable = true
            case "BASE64", "B": base64 = true
            default: break
            }
        case "CHARSET": charset = values.first.flatMap(VCardText.Charset.init(parameter:))
        case "VALUE": valueType = values.first?.lowercased()
        case "X-APPLE-OMIT-YEAR": appleOmitYear = values.first
        default: break
        }
    }
}

private extension StringProtocol {
    var trimmingSpaces: String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { $0 != " " && $0 != "\t" }),
              let last = scalars.lastIndex(where: { $0 != " " && $0 != "\t" }) else { return "" }
        return String(String.UnicodeScalarView(scalars[first...last]))
    }
}
