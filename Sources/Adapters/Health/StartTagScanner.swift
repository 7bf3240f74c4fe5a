import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Streams the start tags of chosen elements out of a large XML file (Apple Health's
/// `export.xml` runs to gigabytes) in bounded memory: the file is read in 1 MiB blocks, and only
/// a tag cut by a block's end is carried over. Text, comments, the DTD and other elements are
/// skipped without being decoded. A file cut off mid-way yields every tag before the cut.
struct StartTagScanner {
    /// One start tag. It points into the scanner's buffer: valid only inside the callback.
    struct Tag {
        var name: String
        /// 1-based line of the tag's `<`, for warnings.
        var line: Int
        fileprivate var bytes: UnsafeBufferPointer<UInt8>
        /// Per attribute: name start, name end, value start, value end, in `bytes`.
        fileprivate var spans: ArraySlice<(Int, Int, Int, Int)>

        /// One attribute's value as written, entities not decoded (a number, a date, a type name).
        func raw(_ key: StaticString) -> UnsafeBufferPointer<UInt8>? {
            let k = UnsafeBufferPointer(start: key.utf8Start, count: key.utf8CodeUnitCount)
            for (ns, ne, vs, ve) in spans where ne - ns == k.count && memcmp(bytes.baseAddress! + ns, k.baseAddress!, k.count) == 0 {
                return UnsafeBufferPointer(rebasing: bytes[vs..<ve])
            }
            return nil
        }

        /// One attribute's value with the five XML entities and character references decoded.
        /// Only what is asked for is decoded: a Record's long `device` attribute never is.
        func value(_ key: StaticString) -> String? { raw(key).map(StartTagScanner.decodeEntities) }

        /// Every attribute, decoded.
        var attributes: [String: String] {
            var out: [String: String] = [:]
            for (ns, ne, vs, ve) in spans {
                out[String(decoding: UnsafeBufferPointer(rebasing: bytes[ns..<ne]), as: UTF8.self)] =
                    StartTagScanner.decodeEntities(UnsafeBufferPointer(rebasing: bytes[vs..<ve]))
            }
            return out
        }
    }

    let stream: any ByteStream
    /// Element names whose start tags are wanted (`Record`, `Workout`, …); a handful, so a
    /// linear byte comparison beats hashing each tag's name.
    let names: [String]
    private let nameBytes: [[UInt8]]
    var blockSize = 1 << 20

    init(stream: any ByteStream, names: Set<String>) {
        self.stream = stream
        self.names = names.sorted()
        self.nameBytes = self.names.map { Array($0.utf8) }
    }

    /// Calls `body` with each wanted start tag, in file order (an end tag is wanted as `/Name`).
    /// A read error ends the scan after every complete tag before it was given.
    /// - Returns: the number of lines read.
    @discardableResult
    func scan(_ body: (Tag) throws(FileReadError) -> Void) throws(FileReadError) -> Int {
        // Blocks are read in place after the tag the last block cut (moved to the front), and
        // scanned where they lie: a multi-GB export is copied once, by the kernel.
        var storage = UnsafeMutableRawBufferPointer.allocate(byteCount: 2 * blockSize, alignment: 16)
        defer { storage.deallocate() }
        var carried = 0
        var line = 1
        var spans: [(Int, Int, Int, Int)] = []
        while true {
            if carried + blockSize > storage.count {          // one tag longer than a block
                let larger = UnsafeMutableRawBufferPointer.allocate(byteCount: 2 * (carried + blockSize), alignment: 16)
                larger.copyMemory(from: UnsafeRawBufferPointer(rebasing: storage[0..<carried]))
                storage.deallocate()
                storage = larger
            }
            let n = try stream.read(into: UnsafeMutableRawBufferPointer(rebasing: storage[carried..<(carried + blockSize)]))
            if n == 0 { return line }          // a tag cut by the end of the file is dropped
            let bytes = UnsafeBufferPointer(start: storage.baseAddress!.assumingMemoryBound(to: UInt8.self), count: carried + n)
            let consumed = try scanBlock(bytes, line: &line, spans: &spans, body)
            carried = bytes.count - consumed
            if carried > 0, consumed > 0 { memmove(storage.baseAddress!, storage.baseAddress! + consumed, carried) }
        }
    }

    /// Scans complete tags in `bytes`; returns how many bytes were consumed (up to the first tag
    /// that is not complete yet).
    private func scanBlock(_ bytes: UnsafeBufferPointer<UInt8>, line: inout Int, spans: inout [(Int, Int, Int, Int)],
                           _ body: (Tag) throws(FileReadError) -> Void) throws(FileReadError) -> Int {
        var i = 0
        let count = bytes.count
        while i < count {
            guard let lt = index(of: 0x3C, in: bytes, from: i) else {
                line += newlines(bytes, i, count)
                return count
            }
            line += newlines(bytes, i, lt)
            guard let gt = index(of: 0x3E, in: bytes, from: lt + 1) else { return lt }   // the tag goes on in the next block
            // The name runs to the first space, `/` or `>` (an end tag's name keeps its `/`).
            var nameEnd = lt + 1 < gt && bytes[lt + 1] == 0x2F ? lt + 2 : lt + 1
            while nameEnd < gt, !isSpace(bytes[nameEnd]), bytes[nameEnd] != 0x2F { nameEnd += 1 }
            let name = UnsafeBufferPointer(rebasing: bytes[(lt + 1)..<nameEnd])
            if let wanted = nameBytes.firstIndex(where: { $0.count == name.count && memcmp($0, name.baseAddress!, name.count) == 0 }).map({ names[$0] }) {
                spans.removeAll(keepingCapacity: true)
                attributeSpans(bytes, nameEnd, gt, into: &spans)
                try body(Tag(name: wanted, line: line, bytes: bytes, spans: spans[...]))
            }
            line += newlines(bytes, lt, gt)
            i = gt + 1
        }
        return count
    }

    private func attributeSpans(_ b: UnsafeBufferPointer<UInt8>, _ from: Int, _ to: Int, into spans: inout [(Int, Int, Int, Int)]) {
        var i = from
        while i < to {
            while i < to, isSpace(b[i]) || b[i] == 0x2F { i += 1 }
            let keyStart = i
            while i < to, b[i] != 0x3D, !isSpace(b[i]) { i += 1 }
            let keyEnd = i
            while i < to, b[i] != 0x22, b[i] != 0x27 { i += 1 }          // to the opening quote
            guard i < to else { break }
            let quote = b[i]
            i += 1
            let valueStart = i
            while i < to, b[i] != quote { i += 1 }
            if keyEnd > keyStart { spans.append((keyStart, keyEnd, valueStart, min(i, to))) }
            i += 1
        }
    }

    /// `&amp;` `&lt;` `&gt;` `&quot;` `&apos;` and `&#…;` / `&#x…;`; anything else is kept as written.
    static func decodeEntities(_ value: UnsafeBufferPointer<UInt8>) -> String {
        guard value.contains(0x26) else { return String(decoding: value, as: UTF8.self) }
        var out: [UInt8] = []
        out.reserveCapacity(value.count)
        var i = 0
        while i < value.count {
            guard value[i] == 0x26, let semi = value[i...].prefix(12).firstIndex(of: 0x3B) else { out.append(value[i]); i += 1; continue }
            let entity = String(decoding: UnsafeBufferPointer(rebasing: value[(i + 1)..<semi]), as: UTF8.self)
            let scalar: Unicode.Scalar?
            switch entity {
            case "amp": scalar = "&"
            case "lt": scalar = "<"
            case "gt": scalar = ">"
            case "quot": scalar = "\""
            case "apos": scalar = "'"
            default:
                if entity.hasPrefix("#x") || entity.hasPrefix("#X") { scalar = UInt32(entity.dropFirst(2), radix: 16).flatMap(Unicode.Scalar.init) }
                else if entity.hasPrefix("#") { scalar = UInt32(entity.dropFirst()).flatMap(Unicode.Scalar.init) }
                else { scalar = nil }
            }
            guard let scalar else { out.append(value[i]); i += 1; continue }
            out.append(contentsOf: Array(String(Character(scalar)).utf8))
            i = semi + 1
        }
        return String(decoding: out, as: UTF8.self)
    }

    private func index(of byte: UInt8, in b: UnsafeBufferPointer<UInt8>, from: Int) -> Int? {
        guard from < b.count, let base = b.baseAddress, let hit = memchr(base + from, Int32(byte), b.count - from) else { return nil }
        return base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
    }

    private func newlines(_ b: UnsafeBufferPointer<UInt8>, _ from: Int, _ to: Int) -> Int {
        var n = 0, i = from
        while i < to, let hit = index(of: 0x0A, in: b, from: i), hit < to { n += 1; i = hit + 1 }
        return n
    }

    private func isSpace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D }
}
