#if canImport(Glibc)
import Glibc
#endif

/// The file handed to readers that take a path (photos, health exports): one per process,
/// rewritten for each input, in HEARTHLOOM_FUZZ_SCRATCH (fuzz/run.sh makes a temporary one).
enum ScratchFile {
    static let path: String = {
        let dir = getenv("HEARTHLOOM_FUZZ_SCRATCH").map { String(cString: $0) } ?? "/tmp"
        let path = "\(dir)/input-\(getpid())"
        atexit { unlink(ScratchFile.path) }
        return path
    }()

    /// Writes `bytes` to the scratch file (replacing what was there) and returns its path.
    static func holding(_ bytes: [UInt8]) -> String {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { fatalError("cannot write \(path): errno \(errno)") }
        defer { close(fd) }
        var written = 0
        while written < bytes.count {
            let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + written, $0.count - written) }
            guard n > 0 else { fatalError("cannot write \(path): errno \(errno)") }
            written += n
        }
        return path
    }
}
