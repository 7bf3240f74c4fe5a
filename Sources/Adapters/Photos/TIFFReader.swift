/// Walks the TIFF structure that every supported format stores Exif in: JPEG APP1, the
/// HEIF Exif item, PNG eXIf, WebP EXIF, and TIFF-based files (TIFF, DNG, CR2, ORF, RW2).
///
/// Only IFD0 and its Exif and GPS sub-IFDs are visited, and only the tags the ingest needs
/// are decoded. Structural damage (offsets outside the data, loops, absurd counts) throws,
/// because a reader that guesses past it can return wrong positions.
struct TIFFReader {
    /// Real IFDs hold tens of entries; thousands means the count field is garbage.
    static let maxEntriesPerIFD = 1000
    /// Upper bound for one decoded value; the strings and rationals read here are tiny.
    static let maxValueBytes = 64 << 10

    private let source: any ByteSource
    private let order: ByteOrder
    private let firstIFD: Int
    private var visited: [Int] = []          // IFD offsets read; at most three

    /// Decodes the metadata of the TIFF stream whose header is at offset 0 of `source`.
    static func metadata(from source: any ByteSource) throws(PhotoReadError) -> PhotoMetadata {
        var reader = try TIFFReader(source: source)
        let ifd0 = try reader.directory(at: reader.firstIFD, name: "IFD0")
        let exif = try reader.subDirectory(of: ifd0, pointerTag: 0x8769, name: "Exif IFD")
        let gps = try reader.subDirectory(of: ifd0, pointerTag: 0x8825, name: "GPS IFD")
        return try reader.decode(ifd0: ifd0, exif: exif, gps: gps)
    }

    /// A maker note's IFD: its own byte order, offsets counted from `source`'s start.
    private init(source: any ByteSource, order: ByteOrder, firstIFD: Int) {
        self.source = source
        self.order = order
        self.firstIFD = firstIFD
    }

    private init(source: any ByteSource) throws(PhotoReadError) {
        guard source.count >= 8 else {
            throw PhotoReadError("TIFF header needs 8 bytes but \(source.name) has \(source.count)")
        }
        let header = try source.bytes(at: 0, count: 8)
        switch (header[header.startIndex], header[header.startIndex + 1]) {
        case (0x49, 0x49): order = .little
        case (0x4D, 0x4D): order = .big
        default:
            throw PhotoReadError("TIFF header in \(source.name) has no II/MM byte-order mark")
        }
        // 0x2A is TIFF; ORF uses "RO"/"RS"/"OR" and RW2 0x55, all with classic TIFF IFDs.
        let magic = order.u16(header, at: 2)
        guard magic != 0x2B else { throw PhotoReadError("BigTIFF is not supported") }
        guard [0x2A, 0x4F52, 0x5352, 0x55].contains(magic) else {
            throw PhotoReadError("unknown TIFF magic number \(magic.hex) in \(source.name)")
        }
        self.source = source
        self.firstIFD = order.u32(header, at: 4)
    }

    // MARK: Directories

    /// One IFD entry, with the value decoded only on demand.
    private struct Entry {
        let tag: Int
        let type: Int
        let count: Int
        /// The 4-byte value-or-offset field.
        let field: ArraySlice<UInt8>
    }

    /// An IFD's 12-byte entries as they are in the file. Tens of entries and a few lookups per
    /// photo: a linear search over the bytes is cheaper than building any table of them. The
    /// first entry of a tag wins.
    private struct Directory {
        var raw: ArraySlice<UInt8> = []
        var order = ByteOrder.big

        subscript(tag: Int) -> Entry? {
            var at = 0
            while at < raw.count {
                if order.u16(raw, at: at) == tag {
                    let field = raw.startIndex + at + 8
                    return Entry(tag: tag, type: order.u16(raw, at: at + 2), count: order.u32(raw, at: at + 4), field: raw[field..<(field + 4)])
                }
                at += 12
            }
            return nil
        }
    }

    private mutating func directory(at offset: Int, name: String) throws(PhotoReadError) -> Directory {
        guard offset >= 8, offset <= source.count - 2 else {
            throw PhotoReadError("\(name) offset \(offset.hex) points outside \(source.name) (size \(source.count))")
        }
        guard !visited.contains(offset) else {
            throw PhotoReadError("IFD loop: \(name) at offset \(offset.hex) was already read")
        }
        visited.append(offset)
        let entryCount = order.u16(try source.bytes(at: offset, count: 2), at: 0)
        guard entryCount <= Self.maxEntriesPerIFD else {
            throw PhotoReadError("\(name) at offset \(offset.hex) claims \(entryCount) entries (limit \(Self.maxEntriesPerIFD))")
        }
        guard entryCount * 12 <= source.count - offset - 2 else {
            throw PhotoReadError("\(name) at offset \(offset.hex) with \(entryCount) entries runs past the end of \(source.name) (size \(source.count))")
        }
        return Directory(raw: try source.bytes(at: offset + 2, count: entryCount * 12), order: order)
    }

    /// The IFD a pointer tag refers to; a missing pointer or offset 0 means none. A pointer can be
    /// written in any numeric type, a float or rational far past Int's range too: that one points
    /// outside the data rather than trapping in the conversion.
    private mutating func subDirectory(of parent: Directory, pointerTag: Int, name: String) throws(PhotoReadError) -> Directory {
        guard let first = try number(pointerTag, in: parent), let value = first, value != 0 else { return Directory() }
        guard let offset = Int(exactly: value.rounded(.towardZero)) else {
            throw PhotoReadError("\(name) offset \(value) points outside \(source.name) (size \(source.count))")
        }
        return try directory(at: offset, name: name)
    }

    // MARK: Values

    /// Byte width of each TIFF field type; types not listed cannot be decoded and are ignored.
    private static func width(ofType type: Int) -> Int? {
        switch type {
        case 1, 2, 6, 7: return 1
        case 3, 8: return 2
        case 4, 9, 11, 13: return 4
        case 5, 10, 12: return 8
        default: return nil
        }
    }

    /// The raw value bytes: inline in the entry when they fit in 4 bytes, else at the offset it holds.
    private func valueBytes(_ entry: Entry) throws(PhotoReadError) -> ArraySlice<UInt8>? {
        guard let width = Self.width(ofType: entry.type) else { return nil }
        guard entry.count <= Self.maxValueBytes / width else {
            throw PhotoReadError("tag \(entry.tag.hex) declares \(entry.count) values, over the \(Self.maxValueBytes >> 10) KiB limit")
        }
        let size = entry.count * width
        if size <= 4 { return entry.field.prefix(size) }
        let offset = order.u32(entry.field, at: 0)
        guard offset <= source.count - size else {
            throw PhotoReadError("value of tag \(entry.tag.hex) at offset \(offset.hex) (\(size) bytes) points outside \(source.name) (size \(source.count))")
        }
        return try source.bytes(at: offset, count: size)
    }

    /// Numeric values as Doubles; a rational with a zero denominator becomes nil, not NaN or infinity.
    private func numbers(_ tag: Int, in directory: Directory) throws(PhotoReadError) -> [Double?]? {
        guard let entry = directory[tag], let raw = try valueBytes(entry) else { return nil }
        return (0..<entry.count).map { number(at: $0, of: entry, in: raw) }
    }

    /// The first numeric value, as `numbers(_:in:)` gives it, with no array made: most tags read hold one.
    private func number(_ tag: Int, in directory: Directory) throws(PhotoReadError) -> Double?? {
        guard let entry = directory[tag], entry.count > 0, let raw = try valueBytes(entry) else { return nil }
        return .some(number(at: 0, of: entry, in: raw))
    }

    private func number(at index: Int, of entry: Entry, in raw: ArraySlice<UInt8>) -> Double? {
        let at = index * (Self.width(ofType: entry.type) ?? 1)
        switch entry.type {
        case 1, 7: return Double(raw[raw.startIndex + at])
        case 3: return Double(order.u16(raw, at: at))
        case 4, 13: return Double(order.u32(raw, at: at))
        case 6: return Double(Int8(bitPattern: raw[raw.startIndex + at]))
        case 8: return Double(Int16(truncatingIfNeeded: order.u16(raw, at: at)))
        case 9: return Double(Int32(truncatingIfNeeded: order.u32(raw, at: at)))
        case 5, 10:
            let numerator = order.u32(raw, at: at), denominator = order.u32(raw, at: at + 4)
            guard denominator != 0 else { return nil }
            return entry.type == 5
                ? Double(numerator) / Double(denominator)
                : Double(Int32(truncatingIfNeeded: numerator)) / Double(Int32(truncatingIfNeeded: denominator))
        case 11: return Double(Float(bitPattern: UInt32(order.u32(raw, at: at))))
        case 12: return Double(bitPattern: order.uint(raw, at: at, width: 8))
        default: return nil
        }
    }

    /// A text value with everything from the first NUL on dropped and whitespace trimmed.
    /// Bytes that are not valid UTF-8 are read as Latin-1, which old cameras actually wrote.
    private func string(_ tag: Int, in directory: Directory) throws(PhotoReadError) -> String? {
        guard let entry = directory[tag], entry.type == 1 || entry.type == 2 || entry.type == 7,
              let raw = try valueBytes(entry) else { return nil }
        // Trimmed as bytes (the blanks are ASCII in either reading), so one string is made.
        let content = raw.prefix { $0 != 0 }.trimmingBlanks
        guard !content.isEmpty else { return nil }
        // Nearly every camera writes ASCII, which needs no validation pass.
        if content.allSatisfy({ $0 < 0x80 }) { return String(decoding: content, as: UTF8.self) }
        return String(validating: content, as: UTF8.self) ?? String(String.UnicodeScalarView(content.map { Unicode.Scalar($0) }))
    }

    // MARK: Tags

    private func decode(ifd0: Directory, exif: Directory, gps: Directory) throws(PhotoReadError) -> PhotoMetadata {
        var metadata = PhotoMetadata()
        metadata.make = try string(0x010F, in: ifd0)
        metadata.model = try string(0x0110, in: ifd0)
        if let first = try number(0x0112, in: ifd0), let value = first, (1...8).contains(value) { metadata.orientation = Int(value) }

        let dateSources = [try string(0x9003, in: exif), try string(0x9004, in: exif), try string(0x0132, in: ifd0)]
        metadata.dateTimeOriginal = dateSources.lazy.compactMap { $0.flatMap(DateTimeText.parse)?.dateTime }.first
        metadata.subSecond = try string(0x9291, in: exif).flatMap(DateTimeText.subSecond)
        let offsetOriginal = try string(0x9011, in: exif).flatMap(DateTimeText.offset)
        let offsetFallback = try string(0x9010, in: exif).flatMap(DateTimeText.offset)
        metadata.offset = offsetOriginal ?? offsetFallback
        metadata.imageUniqueID = try string(0xA420, in: exif)
        metadata.cameraSerial = try string(0xA431, in: exif)
        if metadata.make == "Apple" { metadata.contentIdentifier = appleContentIdentifier(exif) }

        let latitudeReference = Coordinates.reference(try string(1, in: gps))
        let longitudeReference = Coordinates.reference(try string(3, in: gps))
        let latitude = try numbers(2, in: gps).flatMap(Coordinates.degrees(fromComponents:)).map {
            Coordinates.applying(reference: latitudeReference, negativeReference: "S", to: $0)
        }
        let longitude = try numbers(4, in: gps).flatMap(Coordinates.degrees(fromComponents:)).map {
            Coordinates.applying(reference: longitudeReference, negativeReference: "W", to: $0)
        }
        if let position = Coordinates.position(latitude: latitude, longitude: longitude) {
            metadata.latitude = position.latitude
            metadata.longitude = position.longitude
        }
        if let first = try number(6, in: gps), let altitude = first, altitude.isFinite {
            metadata.altitudeM = try isBelowSeaLevel(gps) ? -abs(altitude) : altitude
        }
        if let first = try number(0x1F, in: gps), let error = first, error.isFinite, error >= 0 {
            metadata.horizontalErrorM = error
        }
        metadata.gpsTimestampUTC = DateTimeText.gpsTimestamp(dateStamp: try string(0x1D, in: gps), time: try numbers(7, in: gps))
        return metadata
    }

    /// The Live Photo identifier in an iPhone's MakerNote, tag 0x0011 (exiftool: MediaGroupUUID).
    /// The note is "Apple iOS\0", a 16-bit version, "MM" or "II", then an IFD at byte 14 whose
    /// offsets count from the note's start (exiftool's MakerNotes.pm). A damaged note only loses
    /// the identifier: the photo's own tags stand.
    private func appleContentIdentifier(_ exif: Directory) -> String? {
        guard let entry = exif[0x927C], entry.type == 7 || entry.type == 1, let note = try? valueBytes(entry),
              note.count > 16, note.starts(with: "Apple iOS\0".utf8) else { return nil }
        let marker = note.dropFirst(12).prefix(2)
        let order: ByteOrder = marker.elementsEqual("II".utf8) ? .little : .big
        var reader = TIFFReader(source: MemoryBytes(storage: Array(note), name: "the Apple MakerNote"), order: order, firstIFD: 14)
        guard let directory = try? reader.directory(at: 14, name: "the Apple MakerNote IFD") else { return nil }
        return try? reader.string(0x0011, in: directory)
    }

    /// GPSAltitudeRef is a BYTE 1 for "below sea level"; some writers use the ASCII digit instead.
    private func isBelowSeaLevel(_ gps: Directory) throws(PhotoReadError) -> Bool {
        guard let entry = gps[5] else { return false }
        if entry.type == 2 { return try string(5, in: gps) == "1" }
        return try number(5, in: gps) == 1
    }
}
