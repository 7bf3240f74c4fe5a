import CZlib

/// The content of a gzip file (`activity.fit.gz` of Strava's bulk export), inflated while it
/// is read. Members written one after another (`cat a.gz b.gz`) are one content, as gunzip
/// gives them.
final class GzipStream: ByteStream {
    private let source: any ByteStream
    private let input = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 16)
    private var inputStart = 0, inputEnd = 0
    private let inflater = Inflater()
    private var finished = false

    init(_ source: any ByteStream) throws(FileReadError) {
        self.source = source
        guard inflater.start(gzip: true) else { throw FileReadError("gzip: zlib could not start") }
    }

    deinit { input.deallocate() }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws(FileReadError) -> Int {
        guard !finished, buffer.count > 0 else { return 0 }
        while true {
            if inputStart == inputEnd {
                inputEnd = try source.read(into: input); inputStart = 0
                if inputEnd == 0 { throw FileReadError("gzip: cut off") }
            }
            let (produced, rc) = inflater.inflate(input, from: &inputStart, to: inputEnd, into: buffer)
            switch rc {
            case Z_STREAM_END:
                // Another member may follow; anything else after the first ends the content.
                if inputStart == inputEnd { inputEnd = try source.read(into: input); inputStart = 0 }
                if inputEnd - inputStart >= 2, input[inputStart] == 0x1F, input[inputStart + 1] == 0x8B { inflater.reset() } else { finished = true }
                if produced > 0 || finished { return produced }
            case Z_OK, Z_BUF_ERROR: if produced > 0 { return produced }
            default: throw FileReadError("gzip: damaged (zlib error \(rc))")
            }
        }
    }
}
