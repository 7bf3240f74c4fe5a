import CZlib
import FoundationEssentials

/// The entries of a zip archive that a reader wants (`apple_health_export/export.xml`, the
/// location files of a Takeout), inflated while they are read, so a multi-GB export is never
/// unpacked to disk or memory.
///
/// The archive is walked from the front through its local headers rather than from the central
/// directory at its end, so a zip cut off mid-way (a download or copy that stopped) still gives
/// everything up to the cut. Entries before the wanted one are skipped by their sizes, or
/// inflated into nothing when the sizes come only after the data (general-purpose flag bit 3).
final class ZipEntryStream: ByteStream {
    private let file: any ByteStream
    /// Compressed input read from the file; `inputStart..<inputEnd` is not given to zlib yet.
    private let input = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
    private var inputStart = 0, inputEnd = 0
    private let inflater = Inflater()
    private var method: UInt16 = 0
    private var flags: UInt16 = 0
    /// For a stored entry with a known size: bytes still to give.
    private var storedLeft: UInt64 = 0
    private var finished = false
    /// The entry's name in the archive.
    private(set) var entryName = ""

    /// Positions the stream at the first entry whose name `wanted` accepts.
    init(_ file: any ByteStream, wanted: (String) -> Bool) throws(FileReadError) {
        self.file = file
        while true {
            let header = try localHeader()
            if wanted(header.name) {
                entryName = header.name
                try begin(header)
                return
            }
            try skip(header)
        }
    }

    /// Moves past the rest of this entry to the next one `wanted` accepts; false when the archive
    /// has no more (its central directory, or its end, comes first).
    func next(wanted: (String) -> Bool) throws(FileReadError) -> Bool {
        try finishEntry()
        while true {
            let fixed = try take(4)
            guard fixed == [0x50, 0x4B, 0x03, 0x04] else { return false }
            let header = try localHeader(signed: true)
            if wanted(header.name) {
                entryName = header.name
                try begin(header)
                return true
            }
            try skip(header)
        }
    }

    /// Reads what is left of the current entry into nothing and passes its data descriptor.
    private func finishEntry() throws(FileReadError) {
        let sink = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 16)
        defer { sink.deallocate() }
        while try read(into: sink) > 0 {}
        inflater.end()
        finished = false
        if flags & 8 != 0, method == 8 {
            let descriptor = try take(4)
            // crc and two 32-bit sizes (zip64 descriptors are rare in exports)
            _ = try take(descriptor == [0x50, 0x4B, 0x07, 0x08] ? 12 : 8)
        }
    }

    deinit {
        input.deallocate()
    }

    private struct LocalHeader {
        var name: String
        var flags: UInt16
        var method: UInt16
        var compressedSize: UInt64
        var size: UInt64
    }

    /// The local header at the read position; `signed` when its 4-byte signature was read already.
    private func localHeader(signed: Bool = false) throws(FileReadError) -> LocalHeader {
        let fixed = (signed ? [0x50, 0x4B, 0x03, 0x04] : []) + (try take(signed ? 26 : 30))
        guard fixed.count == 30 else { throw FileReadError("zip: the wanted entry is not in the archive (or it is cut off before it)") }
        func u16(_ at: Int) -> UInt16 { UInt16(fixed[at]) | UInt16(fixed[at + 1]) << 8 }
        func u32(_ at: Int) -> UInt32 { UInt32(u16(at)) | UInt32(u16(at + 2)) << 16 }
        guard u32(0) == 0x0403_4B50 else {
            // The central directory (PK\1\2) follows the last entry.
            throw FileReadError(u32(0) == 0x0201_4B50 ? "zip: none of its entries is an export this adapter reads" : "zip: not a zip local header at an entry's start")
        }
        let nameBytes = try take(Int(u16(26)))
        let extra = try take(Int(u16(28)))
        var header = LocalHeader(name: String(decoding: nameBytes, as: UTF8.self), flags: u16(6), method: u16(8),
                                 compressedSize: UInt64(u32(18)), size: UInt64(u32(22)))
        // Zip64: the real sizes are in extra field 0x0001 when the 32-bit ones are all ones.
        var i = 0
        while i + 4 <= extra.count {
            let id = UInt16(extra[i]) | UInt16(extra[i + 1]) << 8, length = Int(UInt16(extra[i + 2]) | UInt16(extra[i + 3]) << 8)
            if id == 1, i + 4 + 16 <= extra.count {
                func u64(_ at: Int) -> UInt64 { (0..<8).reduce(0) { $0 | UInt64(extra[at + $1]) << (8 * UInt64($1)) } }
                if header.size == 0xFFFF_FFFF { header.size = u64(i + 4) }
                if header.compressedSize == 0xFFFF_FFFF { header.compressedSize = u64(i + 12) }
            }
            i += 4 + length
        }
        return header
    }

    private func begin(_ header: LocalHeader) throws(FileReadError) {
        method = header.method
        flags = header.flags
        switch header.method {
        case 8:
            guard inflater.start(gzip: false) else { throw FileReadError("zip: zlib could not start") }
        case 0:
            guard header.flags & 8 == 0 else { throw FileReadError("zip: a stored entry without sizes cannot be streamed") }
            storedLeft = header.size
        default:
            throw FileReadError("zip: \(header.name) uses compression method \(header.method); only deflate and stored are read")
        }
    }

    private func skip(_ header: LocalHeader) throws(FileReadError) {
        if header.flags & 8 == 0 || header.method == 0 {
            var left = header.compressedSize
            while left > 0 {
                let chunk = try take(Int(min(left, 1 << 20)))
                guard !chunk.isEmpty else { throw FileReadError("zip: cut off inside \(header.name)") }
                left -= UInt64(chunk.count)
            }
            return
        }
        // Sizes follow the data: inflate it into nothing, then pass the data descriptor.
        try begin(header)
        try finishEntry()
    }

    /// Up to `count` bytes from the file (fewer only at its end).
    private func take(_ count: Int) throws(FileReadError) -> [UInt8] {
        var out: [UInt8] = []
        while out.count < count {
            if inputStart == inputEnd { guard try refill() else { break } }
            let n = min(count - out.count, inputEnd - inputStart)
            out += input[inputStart..<(inputStart + n)]
            inputStart += n
        }
        return out
    }

    private func refill() throws(FileReadError) -> Bool {
        let n = try file.read(into: input)
        inputStart = 0; inputEnd = n
        return n > 0
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws(FileReadError) -> Int {
        guard !finished, buffer.count > 0 else { return 0 }
        if method == 0 {
            let chunk = try take(Int(min(storedLeft, UInt64(buffer.count))))
            storedLeft -= UInt64(chunk.count)
            if chunk.isEmpty { finished = true; if storedLeft > 0 { throw FileReadError("zip: cut off inside \(entryName)") } }
            chunk.withUnsafeBytes { buffer.copyMemory(from: $0) }
            return chunk.count
        }
        while true {
            if inputStart == inputEnd, try !refill() { throw FileReadError("zip: cut off inside \(entryName)") }
            let (produced, rc) = inflater.inflate(input, from: &inputStart, to: inputEnd, into: buffer)
            switch rc {
            case Z_STREAM_END: finished = true; return produced
            case Z_OK, Z_BUF_ERROR: if produced > 0 { return produced }
            default: throw FileReadError("zip: \(entryName) is damaged (zlib error \(rc))")
            }
        }
    }
}
