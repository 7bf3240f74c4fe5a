/// What a movie's header boxes said, gathered from wherever each field was found, then ranked.
///
/// The same fact may be written several times: an iPhone writes the place as a `keys` entry,
/// ffmpeg as `©xyz` in MOV and as 3GPP `loci` in MP4, a camera in XMP. The keyed values rank
/// first (Apple's own, with the capture's offset), then QuickTime user data, then `loci`, then
/// `mvhd`'s creation time, which is UTC by the spec but local time on some cameras.
struct MovieFields {
    /// User-data and item-list atom types.
    enum Atom {
        static let location = FourCC(code: 0xA978_797A)      // ©xyz (0xA9: © in Mac Roman)
        static let make = FourCC(code: 0xA96D_616B)          // ©mak
        static let model = FourCC(code: 0xA96D_6F64)         // ©mod
        static let date = FourCC(code: 0xA964_6179)          // ©day
        static let locationInformation: FourCC = "loci"      // 3GPP TS 26.244
        static let xmp: FourCC = "XMP_"
        static let meta: FourCC = "meta"
    }

    /// A `data` atom's well-known type and payload.
    struct Value {
        let type: Int
        let bytes: ArraySlice<UInt8>

        /// UTF-8 text (type 1), or nil for binary types.
        var text: String? {
            guard type == 1 else { return nil }
            let text = String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self).trimmed
            return text.isEmpty ? nil : text
        }

        /// A number written as text, or as a big-endian float32 (23) or float64 (24).
        var number: Double? {
            switch (type, bytes.count) {
            case (23, 4): return Double(Float(bitPattern: UInt32(ByteOrder.big.u32(bytes, at: 0))))
            case (24, 8): return Double(bitPattern: ByteOrder.big.uint(bytes, at: 0, width: 8))
            default: return text.flatMap(Double.init)
            }
        }
    }

    var keyedPlace: String?, userDataPlace: String?, itemListPlace: String?
    var locationInformation: (latitude: Double, longitude: Double, altitude: Double)?
    var keyedDate: String?, userDataDate: String?
    var keyedMake: String?, keyedModel: String?, userDataMake: String?, userDataModel: String?
    var contentIdentifier: String?
    var horizontalAccuracy: Double?
    var createdUTC: LocalDateTime?
    var durationMs: Int?
    var xmp: [UInt8]?

    /// `mvhd`: creation time in seconds since 1904-01-01 UTC (0: not set), time scale and duration.
    mutating func movieHeader(_ body: ArraySlice<UInt8>) {
        guard let version = body.first else { return }
        let wide = version == 1
        guard body.count >= (wide ? 32 : 20) else { return }
        let created = ByteOrder.big.uint(body, at: 4, width: wide ? 8 : 4)
        let scale = ByteOrder.big.u32(body, at: wide ? 20 : 12)
        let duration = ByteOrder.big.uint(body, at: wide ? 24 : 16, width: wide ? 8 : 4)
        let secondsFrom1904To1970: UInt64 = 2_082_844_800
        // Zero means unset; a year past 9999 is garbage, not a time.
        if created != 0, created < 253_402_300_800 + secondsFrom1904To1970 {
            createdUTC = LocalDateTime(year: 1970, month: 1, day: 1, hour: 0, minute: 0, second: 0)
                .shifted(bySeconds: Int(created) - Int(secondsFrom1904To1970))
        }
        if scale > 0, duration < UInt64(Int32.max) * 1000 { durationMs = Int(duration * 1000 / UInt64(scale)) }
    }

    /// 3GPP `loci`: version and flags, language, a name, a role byte, then longitude, latitude
    /// and altitude as signed 16.16 fixed-point numbers.
    mutating func locationInformation(_ body: ArraySlice<UInt8>) {
        guard body.count > 6, let nameEnd = body.dropFirst(6).firstIndex(of: 0) else { return }
        let at = nameEnd + 2 - body.startIndex                       // past the NUL and the role
        guard at + 12 <= body.count else { return }
        func fixed(_ index: Int) -> Double { Double(Int32(truncatingIfNeeded: ByteOrder.big.u32(body, at: index))) / 65536 }
        locationInformation = (fixed(at + 4), fixed(at), fixed(at + 8))
    }

    /// A value from a `keys`-named item (Apple's `com.apple.quicktime.*`, ffmpeg's `location`).
    mutating func set(key: String, value: Value) {
        switch key {
        case "com.apple.quicktime.location.ISO6709", "location": keyedPlace = keyedPlace ?? value.text
        case "com.apple.quicktime.creationdate": keyedDate = keyedDate ?? value.text
        case "com.apple.quicktime.make": keyedMake = keyedMake ?? value.text
        case "com.apple.quicktime.model": keyedModel = keyedModel ?? value.text
        case "com.apple.quicktime.content.identifier": contentIdentifier = contentIdentifier ?? value.text
        case "com.apple.quicktime.location.accuracy.horizontal": horizontalAccuracy = horizontalAccuracy ?? value.number
        default: break
        }
    }

    /// An item-list atom named by its type (`mdir`): only the place is not also in user data.
    mutating func set(atom: FourCC, value: Value) {
        if atom == Atom.location { itemListPlace = itemListPlace ?? value.text }
        else if let text = value.text { set(atom: atom, text: text) }
    }

    /// A QuickTime user-data text (or an item-list text of the same type).
    mutating func set(atom: FourCC, text: String) {
        switch atom {
        case Atom.location: userDataPlace = userDataPlace ?? text
        case Atom.make: userDataMake = userDataMake ?? text.trimmed
        case Atom.model: userDataModel = userDataModel ?? text.trimmed
        case Atom.date: userDataDate = userDataDate ?? text
        default: break
        }
    }

    var metadata: PhotoMetadata {
        var m = PhotoMetadata()
        m.isVideo = true
        let place = [keyedPlace, userDataPlace, itemListPlace].lazy.compactMap { $0.flatMap(MovieFields.iso6709) }.first
            ?? locationInformation
        if let place, let position = Coordinates.position(latitude: place.latitude, longitude: place.longitude) {
            (m.latitude, m.longitude) = position
            m.altitudeM = place.altitude.isFinite && place.altitude != 0 ? place.altitude : nil
            m.horizontalErrorM = horizontalAccuracy.flatMap { $0.isFinite && $0 >= 0 ? $0 : nil }
        }
        // A date without its offset is the camera's wall clock: mvhd's UTC is better, when there is one.
        let dates = [keyedDate, userDataDate].compactMap { $0.flatMap(DateTimeText.parse) }
        if let date = dates.first(where: { $0.offset != nil }) ?? (createdUTC == nil ? dates.first : nil) {
            m.dateTimeOriginal = date.dateTime
            m.subSecond = date.fraction
            m.offset = date.offset
        }
        m.createdUTC = createdUTC
        m.make = keyedMake ?? userDataMake
        m.model = keyedModel ?? userDataModel
        m.contentIdentifier = contentIdentifier
        m.durationMs = durationMs
        return m
    }

    /// An ISO 6709 point as QuickTime writes it: `+DD.DDDD+DDD.DDDD+AAA.AAA/`, or with the
    /// degrees followed by minutes (`+DDMM.MMM`) or minutes and seconds (`+DDMMSS.SS`), as
    /// exiftool's ConvertISO6709 reads it. The altitude is optional.
    static func iso6709(_ text: String) -> (latitude: Double, longitude: Double, altitude: Double)? {
        // On the UTF-8 bytes in place: the text is ASCII, and a Character walk cost more than the rest of a movie's parse.
        var text = text
        return text.withUTF8 { iso6709(bytes: $0[...].trimmingBlanks) }
    }

    private static func iso6709(bytes: Slice<UnsafeBufferPointer<UInt8>>) -> (latitude: Double, longitude: Double, altitude: Double)? {
        var rest = bytes
        func signed(degreeDigits: Int) -> Double? {
            guard let sign = rest.first, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") else { return nil }
            rest = rest.dropFirst()
            let isDigit = { (byte: UInt8) in (0x30...0x39).contains(byte) }
            let integerDigits = rest.prefix(while: isDigit).count
            var end = rest.index(rest.startIndex, offsetBy: integerDigits)
            if end < rest.endIndex, rest[end] == UInt8(ascii: ".") {
                end = rest[rest.index(after: end)...].firstIndex { !isDigit($0) } ?? rest.endIndex
            }
            let number = rest[..<end]
            rest = rest[end...]
            guard let whole = Double(String(decoding: number, as: UTF8.self)) else { return nil }
            let value: Double
            switch degreeDigits == 0 ? 0 : integerDigits - degreeDigits {       // digits past the degrees'
            case ...0: value = whole
            case 2: value = (whole / 100).rounded(.towardZero) + whole.truncatingRemainder(dividingBy: 100) / 60
            case 4:
                let degrees = (whole / 10_000).rounded(.towardZero), minutes = (whole / 100).rounded(.towardZero) - degrees * 100
                value = degrees + minutes / 60 + whole.truncatingRemainder(dividingBy: 100) / 3600
            default: value = .nan
            }
            return sign == UInt8(ascii: "-") ? -value : value
        }
        guard let latitude = signed(degreeDigits: 2), let longitude = signed(degreeDigits: 3),
              latitude.isFinite, longitude.isFinite else { return nil }
        return (latitude, longitude, signed(degreeDigits: 0) ?? .nan)
    }
}
