import FoundationEssentials
import IngestCore
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Bytes read in blocks, front to back: a file, or a zip entry inflated on the fly.
protocol ByteStream: AnyObject {
    /// Fills the start of `buffer`; 0 at the end.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws(FileReadError) -> Int
}

extension ByteStream {
    /// Reads what is left, so that a digest the stream feeds covers the whole file when a reader
    /// stops at the end of its document.
    func drain() throws(FileReadError) {
        let block = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 16)
        defer { block.deallocate() }
        while try read(into: block) > 0 {}
    }
}

/// A file's content hash, taken while the file is parsed rather than in a second pass over a
/// multi-GB export, on a worker lane: the parsing thread only copies each block.
final class ContentHasher: Sendable {
    // Blocks are hashed on `lane`, one after another; the lock is never contended, it only
    // lets the compiler check that the digest is not shared unguarded.
    private let digest = Locked(StreamingDigest())
    private let lane = WorkerThreads.Lane("content-hash")

    func update(_ bytes: UnsafeRawBufferPointer) {
        guard bytes.count > 0 else { return }
        let copy = [UInt8](bytes)
        lane.submit { [digest] in digest.withLock { digest in copy.withUnsafeBytes { digest.update($0) } } }
    }

    /// Waits for the blocks given so far, then finishes the hash (32 hex digits).
    func finish() -> String { lane.runBlocking { [digest] in digest.withLock { $0.finishHex(length: 32) } } }
}

/// A file read from an offset, optionally feeding every byte read to a ``ContentHasher``.
final class FileByteStream: ByteStream {
    private let fd: Int32
    let path: String
    private let digest: ContentHasher?

    init(path: String, offset: Int64 = 0, digest: ContentHasher? = nil) throws(FileReadError) {
        fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw FileReadError("cannot open: \(String(cString: strerror(errno)))") }
        self.path = path; self.digest = digest
        if offset > 0, lseek(fd, off_t(offset), SEEK_SET) < 0 {
            let reason = String(cString: strerror(errno)); close(fd)
            throw FileReadError("cannot seek: \(reason)")
        }
        _ = posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL)
    }

    deinit { close(fd) }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws(FileReadError) -> Int {
        while true {
            let n = Glibc.read(fd, buffer.baseAddress, buffer.count)
            if n < 0 {
                if errno == EINTR { continue }
                throw FileReadError("read failed: \(String(cString: strerror(errno)))")
            }
            digest?.update(UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
            return n
        }
    }
}
