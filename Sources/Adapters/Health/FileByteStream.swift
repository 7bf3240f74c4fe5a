import FoundationEssentials
import IngestCore
#if canImport(Glibc)
import Glibc
#endif

/// Bytes read in blocks, front to back: a file, or a zip entry inflated on the fly.
protocol ByteStream: AnyObject {
    /// Fills the start of `buffer`; 0 at the end.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws(HealthReadError) -> Int
}

/// A file read from an offset, optionally feeding every byte read to a digest (the file's
/// content hash is taken while it is parsed, not in a second pass over a multi-GB export).
final class FileByteStream: ByteStream {
    private let fd: Int32
    let path: String
    private let digest: StreamingDigest?

    init(path: String, offset: Int64 = 0, digest: StreamingDigest? = nil) throws(HealthReadError) {
        fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw HealthReadError("cannot open: \(String(cString: strerror(errno)))") }
        self.path = path; self.digest = digest
        if offset > 0, lseek(fd, off_t(offset), SEEK_SET) < 0 {
            let reason = String(cString: strerror(errno)); close(fd)
            throw HealthReadError("cannot seek: \(reason)")
        }
        _ = posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL)
    }

    deinit { close(fd) }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws(HealthReadError) -> Int {
        while true {
            let n = Glibc.read(fd, buffer.baseAddress, buffer.count)
            if n < 0 {
                if errno == EINTR { continue }
                throw HealthReadError("read failed: \(String(cString: strerror(errno)))")
            }
            digest?.update(UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
            return n
        }
    }
}
