/// A byte stream (a file, a zip entry) read in 1 MiB blocks into a window the parsers look into:
/// `bytes[position...]` is what is not consumed yet. Only the unconsumed tail is carried over when
/// the window is refilled, so memory stays at a block or two however large the file.
struct BlockReader {
    /// nil for bytes already in memory (a file's head, a test's text), which need no block.
    private let stream: (any ByteStream)?
    private let block: ReadBlock?
    private(set) var bytes: [UInt8] = []
    var position = 0
    private(set) var atEnd = false
    /// A read error met while only looking ahead (`head`), thrown by the next read that needs more.
    private var deferredFailure: FileReadError?
    /// 1-based line of `position`, kept by the parsers that count lines.
    var line = 1
    static let blockSize = 1 << 20

    init(_ stream: any ByteStream) { self.stream = stream; block = ReadBlock() }

    /// `bytes` as the whole stream.
    init(_ bytes: [UInt8]) { stream = nil; block = nil; self.bytes = bytes; atEnd = true }

    /// Reads one more block onto the window; false at the end of the stream.
    mutating func refill() throws(FileReadError) -> Bool {
        guard !atEnd, let stream, let block else { return false }
        if let failure = deferredFailure { throw failure }
        if position > 0 { bytes.removeSubrange(0..<position); position = 0 }
        let n = try stream.read(into: block.buffer)
        bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: block.buffer[0..<n]))
        if n == 0 { atEnd = true }
        return n > 0
    }

    /// At least `count` unconsumed bytes are in the window, unless the stream ends first.
    mutating func ensure(_ count: Int) throws(FileReadError) -> Bool {
        while bytes.count - position < count { guard try refill() else { return false } }
        return true
    }

    /// The first `count` bytes or fewer, read now (detection looks at a file's head); a stream
    /// that breaks off sooner gives what came before, and the error once the parser needs more.
    mutating func head(_ count: Int) -> ArraySlice<UInt8> {
        do throws(FileReadError) { _ = try ensure(count) } catch { deferredFailure = error }
        return bytes[position..<min(bytes.count, position + count)]
    }

    /// The offset (from `position`) of `needle` in the window, refilling until it is found or the stream ends.
    mutating func find(_ needle: [UInt8], from offset: Int = 0) throws(FileReadError) -> Int? {
        var from = position + offset
        while true {
            if let at = BlockReader.index(of: needle, in: bytes, from: from) { return at - position }
            from = max(position, bytes.count - needle.count + 1)
            let kept = from - position
            guard try refill() else { return nil }
            from = position + kept
        }
    }

    static func index(of needle: [UInt8], in haystack: [UInt8], from: Int) -> Int? {
        guard let first = needle.first, haystack.count >= needle.count else { return nil }
        var i = from
        let last = haystack.count - needle.count
        while i <= last {
            if haystack[i] == first {
                var j = 1
                while j < needle.count, haystack[i + j] == needle[j] { j += 1 }
                if j == needle.count { return i }
            }
            i += 1
        }
        return nil
    }
}

/// The block a ``BlockReader`` reads into, allocated once per reader: a stream that gives a few
/// bytes per read (a zip entry inflating) would otherwise cost an allocation per read.
final class ReadBlock {
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: BlockReader.blockSize, alignment: 16)
    deinit { buffer.deallocate() }
}

/// What a ``BlockReader`` has not consumed, as a stream again: the bytes it looked ahead at
/// (a head read to tell a zip or gzip from an export), then the rest of its stream.
final class BlockReaderStream: ByteStream {
    private var reader: BlockReader

    init(_ reader: BlockReader) { self.reader = reader }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws(FileReadError) -> Int {
        if reader.position == reader.bytes.count { guard try reader.refill() else { return 0 } }
        let n = min(buffer.count, reader.bytes.count - reader.position)
        reader.bytes.withUnsafeBytes { buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[reader.position..<(reader.position + n)])) }
        reader.position += n
        return n
    }
}
