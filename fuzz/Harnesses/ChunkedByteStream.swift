@testable import Adapters

/// Bytes from memory in reads of at most `chunk` bytes. A zip entry inflates in pieces of any
/// size, so scanners fed through this see tags and headers cut at every possible place.
final class ChunkedByteStream: ByteStream {
    private let bytes: [UInt8]
    private let chunk: Int
    private var position = 0

    init(_ bytes: [UInt8], chunk: Int = .max) {
        self.bytes = bytes
        self.chunk = max(1, chunk)
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws(FileReadError) -> Int {
        let count = min(buffer.count, chunk, bytes.count - position)
        guard count > 0 else { return 0 }
        bytes.withUnsafeBytes { source in
            buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: source[position..<(position + count)]))
        }
        position += count
        return count
    }
}
