@testable import Adapters

/// Bytes from memory in reads of at most `chunk` bytes, so a streaming reader sees its input
/// cut at every place a block's end can fall.
final class MemoryByteStream: ByteStream {
    private let bytes: [UInt8]
    private let chunk: Int
    private var position = 0

    init(_ bytes: [UInt8], chunk: Int) {
        self.bytes = bytes
        self.chunk = max(1, chunk)
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws(FileReadError) -> Int {
        let count = min(buffer.count, chunk, bytes.count - position)
        guard count > 0 else { return 0 }
        bytes.withUnsafeBytes { buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[position..<(position + count)])) }
        position += count
        return count
    }
}
