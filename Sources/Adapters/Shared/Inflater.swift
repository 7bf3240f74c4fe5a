import CZlib

/// One zlib inflate stream, raw deflate (a zip entry) or gzip, started and ended by its owner.
/// On the heap: zlib keeps the stream's address in its state and refuses a moved stream, and
/// `&` on a stored property promises no fixed address.
final class Inflater {
    private let stream: UnsafeMutablePointer<z_stream> = {
        let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        stream.initialize(to: z_stream())
        return stream
    }()
    private var active = false

    /// Begins a stream; false when zlib could not.
    func start(gzip: Bool) -> Bool {
        end()
        active = (gzip ? czlib_inflate_init_gzip(stream) : czlib_inflate_init_raw(stream)) == Z_OK
        return active
    }

    /// Begins the next gzip member after one ended.
    func reset() { inflateReset(stream) }

    func end() {
        if active { inflateEnd(stream); active = false }
    }

    /// Inflates `input[start..<end]` into `buffer`, moving `start` past what zlib took: the
    /// bytes produced and zlib's code.
    func inflate(_ input: UnsafeMutableRawBufferPointer, from start: inout Int, to end: Int,
                 into buffer: UnsafeMutableRawBufferPointer) -> (produced: Int, rc: Int32) {
        let given = end - start
        stream.pointee.next_in = (input.baseAddress! + start).assumingMemoryBound(to: UInt8.self)
        stream.pointee.avail_in = UInt32(given)
        stream.pointee.next_out = buffer.baseAddress!.assumingMemoryBound(to: UInt8.self)
        stream.pointee.avail_out = UInt32(min(buffer.count, Int(UInt32.max)))
        let rc = CZlib.inflate(stream, Z_NO_FLUSH)
        start += given - Int(stream.pointee.avail_in)
        return (buffer.count - Int(stream.pointee.avail_out), rc)
    }

    deinit {
        end()
        stream.deallocate()
    }
}
