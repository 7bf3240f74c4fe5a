/// Reads where and when a video was shot from its movie header: MP4, MOV, M4V and 3GP, the
/// QuickTime and ISO-BMFF families alike.
///
/// Everything wanted is in the `moov` box (and, for MP4s exiftool tagged, an XMP `uuid` box
/// beside it); the frames are in `mdat`, which is never read. A camera writes `moov` after
/// `mdat` unless the file was made "fast-start", so the top level is walked by box headers
/// alone: one `pread` of 8 (or 16, for a 64-bit largesize) bytes per box. The shapes read here
/// are those of exiftool's QuickTime tag tables (`QuickTime.pm`: Keys, UserData, ItemList,
/// `ConvertISO6709`), ffmpeg's movenc (`©xyz` in MOV, 3GPP `loci` in MP4, an `mdta` keys list
/// under `udta/meta` with `-movflags use_metadata_tags`) and Apple's QuickTime File Format
/// metadata chapter (`moov/meta` with `keys` + `ilst`, values in `data` atoms).
enum QuickTimeReader {
    /// Brands of movies: QuickTime, the ISO base and MP4 brands, iTunes M4V, 3GPP and 3GPP2.
    /// A file is a HEIF image first when it names an image brand too (ISOBMFFReader.isImage).
    private static let movieBrands: Set<FourCC> = [
        "qt  ", "isom", "iso2", "iso3", "iso4", "iso5", "iso6", "mp41", "mp42", "mp71", "avc1", "hvc1", "MSNV",
        "M4V ", "M4VH", "M4VP", "XAVC", "3gp4", "3gp5", "3gp6", "3gp7", "3gp8", "3gp9", "3gg6", "3ge6", "3g2a", "3g2b", "3g2c",
    ]
    /// Box types a QuickTime movie without `ftyp` (older MOVs) may start with.
    private static let leadingMovieBoxes: Set<FourCC> = ["moov", "mdat", "wide", "free", "skip", "pnot"]
    /// The UUID of the top-level box in which exiftool (and Adobe's XMP toolkit) puts an MP4's XMP.
    private static let xmpUUID: [UInt8] = [0xBE, 0x7A, 0xCF, 0xCB, 0x97, 0xA9, 0x42, 0xE8, 0x9C, 0x71, 0x99, 0x94, 0x91, 0xE3, 0xAF, 0xAC]
    /// A larger `moov` (hours of video, a sample table per frame) is skipped, not read.
    static let maxMovieBoxSize = 4 << 20
    /// A `moov` up to this size is read in one `pread` and walked in memory; a larger one box by box.
    private static let wholeMovieReadSize = 64 << 10
    /// Top-level boxes looked at: a fragmented MP4 has thousands of `moof`/`mdat` pairs after `moov`.
    private static let maxTopLevelBoxes = 64
    /// A `keys` list is a few hundred bytes; a larger one is not read.
    private static let maxMetadataBoxSize = 1 << 20
    /// Texts and `loci` are tens of bytes: what is past this is not read.
    private static let maxTextSize = 4096

    static func isMovie(brands: [FourCC]) -> Bool {
        brands.contains(where: movieBrands.contains)
    }

    /// True for a QuickTime movie that starts without an `ftyp` box.
    static func startsLikeMovie(_ head: [UInt8]) -> Bool {
        head.count >= 8 && leadingMovieBoxes.contains(FourCC(head[4..<8]))
    }

    /// The movie's metadata: position, capture time, camera, content identifier and duration.
    static func metadata(in file: FileBytes) throws(PhotoReadError) -> PhotoMetadata {
        var movie: ISOBMFFReader.Box?
        var xmp: [UInt8]?
        var offset = 0
        for _ in 0..<maxTopLevelBoxes where offset < file.count {
            let box: ISOBMFFReader.Box
            do { box = try ISOBMFFReader.box(in: file, at: offset, end: file.count, parent: "the file") } catch {
                if movie != nil { break }           // padding or junk after moov: what is wanted was found
                throw error
            }
            offset = box.end
            if box.type == "moov", movie == nil { movie = box }
            if box.type == "moof" { break }        // fragments follow; moov came before them
            if box.type == "uuid", box.end - box.contentStart > 16,
               try file.bytes(at: box.contentStart, count: 16).elementsEqual(xmpUUID) {
                xmp = try XMPReader.packet(in: file, at: box.contentStart + 16, count: box.end - box.contentStart - 16)
            }
        }
        guard let movie else { throw PhotoReadError("movie has no 'moov' box (truncated, or still being recorded?)") }
        var fields = MovieFields()
        try read(movie: movie, in: file, into: &fields)
        var metadata = fields.metadata
        if let xmp = fields.xmp ?? xmp { metadata = metadata.fillingGaps(from: XMPReader.metadata(from: xmp)) }
        return metadata
    }

    /// Reads `moov`'s header, user data and metadata boxes; its tracks are skipped by their headers.
    private static func read(movie: ISOBMFFReader.Box, in file: FileBytes, into fields: inout MovieFields) throws(PhotoReadError) {
        let size = movie.end - movie.contentStart
        guard size <= maxMovieBoxSize else {
            throw PhotoReadError("'moov' box of \(size >> 20) MiB exceeds the \(maxMovieBoxSize >> 20) MiB limit")
        }
        let source: any ByteSource = size <= wholeMovieReadSize
            ? MemoryBytes(storage: Array(try file.bytes(at: movie.contentStart, count: size)), name: "the 'moov' box")
            : try ByteRange(file, start: movie.contentStart, count: size, name: "the 'moov' box")
        for box in try ISOBMFFReader.boxes(in: source, from: 0, to: size, parent: "the 'moov' box") {
            switch box.type {
            case "mvhd": fields.movieHeader(try source.bytes(at: box.contentStart, count: min(box.end - box.contentStart, 32)))
            case "udta": try userData(inside(box, of: source), into: &fields)
            case "meta": try keyedMetadata(inside(box, of: source), into: &fields)
            default: continue
            }
        }
    }

    /// `moov/udta`: QuickTime `©xyz`/`©mak`/`©mod`/`©day` texts, 3GPP `loci`, `XMP_`, and a `meta`.
    /// Only the atoms wanted are read; others (a camera's thumbnail, GoPro's GPMF) are skipped.
    private static func userData(_ udta: ByteRange, into fields: inout MovieFields) throws(PhotoReadError) {
        for box in try ISOBMFFReader.boxes(in: udta, from: 0, to: udta.count, parent: "the 'udta' box") {
            let count = box.end - box.contentStart
            switch box.type {
            case MovieFields.Atom.location, MovieFields.Atom.make, MovieFields.Atom.model, MovieFields.Atom.date:
                if let text = userDataText(try udta.bytes(at: box.contentStart, count: min(count, maxTextSize))) { fields.set(atom: box.type, text: text) }
            case MovieFields.Atom.locationInformation: fields.locationInformation(try udta.bytes(at: box.contentStart, count: min(count, maxTextSize)))
            case MovieFields.Atom.xmp where fields.xmp == nil: fields.xmp = try XMPReader.packet(in: udta, at: box.contentStart, count: count)
            case MovieFields.Atom.meta: try keyedMetadata(inside(box, of: udta), into: &fields)
            default: continue
            }
        }
    }

    /// A `meta` box: its `keys` list and the `ilst` values they name (`mdta`), or `ilst` atoms named
    /// by type (`mdir`). In `moov` it is a plain box, in `udta` a FullBox (4 bytes of version and
    /// flags first): told apart by whether its first child, `hdlr`, starts at once.
    private static func keyedMetadata(_ meta: ByteRange, into fields: inout MovieFields) throws(PhotoReadError) {
        var startsWithHandler = false
        if meta.count >= 8 { startsWithHandler = try meta.bytes(at: 4, count: 4).elementsEqual("hdlr".utf8) }
        let start = startsWithHandler ? 0 : 4
        guard start <= meta.count else { return }
        let children = try ISOBMFFReader.boxes(in: meta, from: start, to: meta.count, parent: "the 'meta' box")
        var keys: [String] = []
        if let box = children.first(where: { $0.type == "keys" }), box.end - box.contentStart <= maxMetadataBoxSize {
            keys = try keyNames(meta.bytes(at: box.contentStart, count: box.end - box.contentStart))
        }
        guard let list = children.first(where: { $0.type == "ilst" }) else { return }
        for item in try ISOBMFFReader.boxes(in: meta, from: list.contentStart, to: list.end, parent: "the 'ilst' box") {
            guard let value = try dataValue(in: meta, item: item) else { continue }
            let index = Int(item.type.code)
            if index >= 1, index <= keys.count { fields.set(key: keys[index - 1], value: value) } else { fields.set(atom: item.type, value: value) }
        }
    }

    /// The names of a `keys` box in order (`mdta` namespace; others are kept so indexes stay right).
    private static func keyNames(_ keys: ArraySlice<UInt8>) throws(PhotoReadError) -> [String] {
        var cursor = ByteCursor(keys, name: "'keys' box")
        try cursor.skip(4)
        let count = try cursor.u32()
        var names: [String] = []
        for _ in 0..<min(count, 1000) where cursor.remaining >= 8 {
            let size = try cursor.u32()
            guard size >= 8 else { throw PhotoReadError("'keys' entry \(names.count + 1) has invalid size \(size)") }
            try cursor.skip(4)                                       // namespace, "mdta"
            names.append(try cursor.text(count: size - 8))
        }
        return names
    }

    /// The first `data` atom inside an `ilst` item: its type (1 UTF-8, 23/24 float) and payload.
    private static func dataValue(in meta: ByteRange, item: ISOBMFFReader.Box) throws(PhotoReadError) -> MovieFields.Value? {
        let boxes = try ISOBMFFReader.boxes(in: meta, from: item.contentStart, to: item.end, parent: "an 'ilst' item")
        // A cover picture or other large binary value is passed over unread.
        guard let data = boxes.first(where: { $0.type == "data" }), (8...maxTextSize).contains(data.end - data.contentStart) else { return nil }
        let body = try meta.bytes(at: data.contentStart, count: data.end - data.contentStart)
        return MovieFields.Value(type: ByteOrder.big.u32(body, at: 0) & 0xFF_FFFF, bytes: body.dropFirst(8))
    }

    /// A QuickTime user-data text: a 16-bit length, a 16-bit language code, then the text.
    private static func userDataText(_ body: ArraySlice<UInt8>) -> String? {
        guard body.count >= 4 else { return nil }
        let length = min(ByteOrder.big.u16(body, at: 0), body.count - 4)
        let text = body.dropFirst(4).prefix(length).prefix { $0 != 0 }
        return text.isEmpty ? nil : String(decoding: text, as: UTF8.self)
    }

    /// A child box's content as a source of its own (in memory when `moov` was read whole).
    private static func inside(_ box: ISOBMFFReader.Box, of source: any ByteSource) throws(PhotoReadError) -> ByteRange {
        try ByteRange(source, start: box.contentStart, count: box.end - box.contentStart, box: box.type)
    }
}
