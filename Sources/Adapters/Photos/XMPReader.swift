/// Reads the geotag, capture time and camera properties from an XMP packet or `.xmp` sidecar.
///
/// XMP is RDF/XML, but the properties needed here are simple values that writers put either
/// in attributes (`exif:GPSLatitude="48,51.4N"`) or as element text, possibly wrapped in an
/// rdf:Alt/rdf:Seq. Matching on local names, whatever the namespace prefix, is enough and
/// far smaller and faster than a full XML parser.
enum XMPReader {
    /// Larger packets are not read; Photoshop history can bloat XMP, but not the fields used here.
    static let maxPacketSize = 2 << 20

    /// True when the bytes contain the RDF namespace every XMP packet declares.
    static func looksLikeXMP(_ bytes: [UInt8]) -> Bool {
        let marker = Array("http://www.w3.org/1999/02/22-rdf-syntax-ns#".utf8)
        guard bytes.count >= marker.count else { return false }
        return (0...(bytes.count - marker.count)).contains { start in
            bytes[start] == marker[0] && bytes[start..<(start + marker.count)].elementsEqual(marker)
        }
    }

    /// The packet stored at `offset` in `source`, or nil when it is over `maxPacketSize`.
    static func packet(in source: any ByteSource, at offset: Int, count: Int) throws(PhotoReadError) -> [UInt8]? {
        guard count <= maxPacketSize else { return nil }
        return Array(try source.bytes(at: offset, count: count))
    }

    static func metadata(from packet: [UInt8]) -> PhotoMetadata {
        var scanner = PropertyScanner(bytes: packet)
        let values = scanner.scan()
        var metadata = PhotoMetadata()

        if let position = Coordinates.position(latitude: values["GPSLatitude"].flatMap(coordinate),
                                               longitude: values["GPSLongitude"].flatMap(coordinate)) {
            metadata.latitude = position.latitude
            metadata.longitude = position.longitude
        }
        if let altitude = values["GPSAltitude"].flatMap(number) {
            metadata.altitudeM = values["GPSAltitudeRef"] == "1" ? -abs(altitude) : altitude
        }
        if let error = values["GPSHPositioningError"].flatMap(number), error >= 0 {
            metadata.horizontalErrorM = error
        }
        let date = ["DateTimeOriginal", "DateCreated", "CreateDate"].lazy
            .compactMap { values[$0].flatMap(DateTimeText.parse) }.first
        if let date {
            metadata.dateTimeOriginal = date.dateTime
            metadata.subSecond = date.fraction
            metadata.offset = date.offset
        }
        metadata.gpsTimestampUTC = values["GPSTimeStamp"].flatMap(DateTimeText.parse)?.utc
        metadata.make = values["Make"]
        metadata.model = values["Model"]
        metadata.imageUniqueID = values["ImageUniqueID"]
        metadata.cameraSerial = values["BodySerialNumber"] ?? values["SerialNumber"]
        return metadata
    }

    /// An XMP GPSCoordinate: "DDD,MM,SSk" or "DDD,MM.mmk" with k one of N/S/E/W; a plain
    /// signed decimal is accepted too because some writers ignore the XMP spec.
    static func coordinate(_ text: String) -> Double? {
        var body = Substring(text.trimmed)
        var negative = false
        if let last = body.last, last.isLetter {
            switch last.uppercased() {
            case "S", "W": negative = true
            case "N", "E": break
            default: return nil
            }
            body.removeLast()
        }
        let parts = body.split(separator: ",", omittingEmptySubsequences: false)
        guard (1...3).contains(parts.count) else { return nil }
        var components: [Double?] = []
        for part in parts {
            guard let value = Double(part.trimmed), value.isFinite else { return nil }
            components.append(value)
        }
        guard let degrees = Coordinates.degrees(fromComponents: components) else { return nil }
        return negative ? -abs(degrees) : degrees
    }

    /// An XMP rational ("1234/10") or decimal; a zero denominator is no value.
    static func number(_ text: String) -> Double? {
        let parts = text.trimmed.split(separator: "/", omittingEmptySubsequences: false)
        switch parts.count {
        case 1:
            return Double(parts[0]).flatMap { $0.isFinite ? $0 : nil }
        case 2:
            guard let numerator = Double(parts[0].trimmed), let denominator = Double(parts[1].trimmed),
                  denominator != 0 else { return nil }
            let value = numerator / denominator
            return value.isFinite ? value : nil
        default:
            return nil
        }
    }
}

/// A single pass over the packet's markup that records the first non-empty value of each
/// wanted property, keyed by local name.
///
/// Attribute values are taken directly. For an element, the first non-blank text before
/// its end tag is taken, which also reaches into an rdf:Alt/rdf:Seq's first rdf:li.
/// Comments, processing instructions and DOCTYPEs are skipped; CDATA counts as text.
private struct PropertyScanner {
    static let wanted: Set<String> = [
        "GPSLatitude", "GPSLongitude", "GPSAltitude", "GPSAltitudeRef", "GPSHPositioningError", "GPSTimeStamp",
        "DateTimeOriginal", "DateCreated", "CreateDate", "Make", "Model", "ImageUniqueID",
        "BodySerialNumber", "SerialNumber",
    ]

    let bytes: [UInt8]
    private var index = 0
    private var found: [String: String] = [:]
    /// Local name of an open wanted element whose text has not been seen yet.
    private var pending: String?

    init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    mutating func scan() -> [String: String] {
        while index < bytes.count {
            if bytes[index] != UInt8(ascii: "<") {
                let end = bytes[index...].firstIndex(of: UInt8(ascii: "<")) ?? bytes.count
                record(text: Self.decodeEntities(bytes[index..<end]))
                index = end
            } else if hasPrefix("<!--") {
                skip(past: "-->")
            } else if hasPrefix("<![CDATA[") {
                let start = index + 9
                skip(past: "]]>")
                record(text: String(decoding: bytes[start..<max(start, index - 3)], as: UTF8.self))
            } else if hasPrefix("<?") {
                skip(past: "?>")
            } else if hasPrefix("<!") {
                skip(past: ">")
            } else if hasPrefix("</") {
                index += 2
                if localName(of: name()) == pending { pending = nil }
                skip(past: ">")
            } else {
                startTag()
            }
        }
        return found
    }

    private mutating func record(text: String) {
        guard let property = pending else { return }
        let value = text.trimmed
        guard !value.isEmpty else { return }
        store(property, value)
        pending = nil
    }

    private mutating func store(_ property: String, _ value: String) {
        if found[property] == nil { found[property] = value }
    }

    /// Reads `<name attr="v" ...>` or `.../>`, storing wanted attributes and noting a wanted element.
    private mutating func startTag() {
        index += 1
        let element = localName(of: name())
        while index < bytes.count {
            skipWhitespace()
            guard index < bytes.count else { return }
            switch bytes[index] {
            case UInt8(ascii: ">"):
                index += 1
                if Self.wanted.contains(element), found[element] == nil { pending = element }
                return
            case UInt8(ascii: "/"):
                index += 1
                if index < bytes.count, bytes[index] == UInt8(ascii: ">") { index += 1 }
                return
            default:
                let attribute = localName(of: name())
                skipWhitespace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: "=") else {
                    index += 1
                    continue
                }
                index += 1
                skipWhitespace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") || bytes[index] == UInt8(ascii: "'") else { continue }
                let quote = bytes[index]
                let start = index + 1
                let end = bytes[start...].firstIndex(of: quote) ?? bytes.count
                index = min(end + 1, bytes.count)
                if Self.wanted.contains(attribute) {
                    let value = Self.decodeEntities(bytes[start..<end]).trimmed
                    if !value.isEmpty { store(attribute, value) }
                }
            }
        }
    }

    /// A qualified name: everything up to whitespace, "=", "/" or ">".
    private mutating func name() -> ArraySlice<UInt8> {
        let start = index
        while index < bytes.count {
            switch bytes[index] {
            case 0x09, 0x0A, 0x0D, 0x20, UInt8(ascii: "="), UInt8(ascii: "/"), UInt8(ascii: ">"): return bytes[start..<index]
            default: index += 1
            }
        }
        return bytes[start..<index]
    }

    /// "exif:GPSLatitude" → "GPSLatitude": prefixes vary between writers, local names do not.
    private func localName(of qualified: ArraySlice<UInt8>) -> String {
        let local = qualified.lastIndex(of: UInt8(ascii: ":")).map { qualified[($0 + 1)...] } ?? qualified
        return String(decoding: local, as: UTF8.self)
    }

    private mutating func skipWhitespace() {
        while index < bytes.count, [0x09, 0x0A, 0x0D, 0x20].contains(bytes[index]) { index += 1 }
    }

    private func hasPrefix(_ text: StaticString) -> Bool {
        let count = text.utf8CodeUnitCount
        guard bytes.count - index >= count else { return false }
        return text.withUTF8Buffer { bytes[index..<(index + count)].elementsEqual($0) }
    }

    private mutating func skip(past terminator: StaticString) {
        while index < bytes.count, !hasPrefix(terminator) { index += 1 }
        index = min(index + terminator.utf8CodeUnitCount, bytes.count)
    }

    /// Text with the five predefined entities and numeric character references resolved.
    static func decodeEntities(_ raw: ArraySlice<UInt8>) -> String {
        let text = String(decoding: raw, as: UTF8.self)
        guard text.contains("&") else { return text }
        var result = ""
        var rest = Substring(text)
        while let amp = rest.firstIndex(of: "&") {
            result += rest[..<amp]
            let afterAmp = rest.index(after: amp)
            guard let semicolon = rest[afterAmp...].prefix(12).firstIndex(of: ";"),
                  let character = character(forEntity: rest[afterAmp..<semicolon]) else {
                result.append("&")
                rest = rest[afterAmp...]
                continue
            }
            result.append(character)
            rest = rest[rest.index(after: semicolon)...]
        }
        return result + rest
    }

    private static func character(forEntity entity: Substring) -> Character? {
        switch entity {
        case "amp": return "&"
        case "lt": return "<"
        case "gt": return ">"
        case "quot": return "\""
        case "apos": return "'"
        default:
            guard entity.hasPrefix("#") else { return nil }
            let digits = entity.dropFirst()
            let code = digits.hasPrefix("x") || digits.hasPrefix("X")
                ? UInt32(digits.dropFirst(), radix: 16) : UInt32(digits, radix: 10)
            return code.flatMap(Unicode.Scalar.init).map(Character.init)
        }
    }
}
