import FoundationEssentials
import IngestCore
#if canImport(Glibc)
import Glibc
#endif

/// The spool's sorted runs on disk: a 0600 file in `$TMPDIR` (or /tmp), unlinked as soon as it
/// is made, so it is gone when the run ends however it ends. Never fsynced: nothing reads it
/// after the process. Its failures (a full disk) are transient: the export is read again on the
/// next scan.
final class SpillFile: Sendable {
    private let fd: Int32

    init(in folder: String = TemporaryFile.folder) throws(FileReadError) {
        do {
            let (fd, path) = try TemporaryFile.make(in: folder, prefix: "hearthloom-health-sort")
            unlink(path)
            self.fd = fd
        } catch { throw FileReadError(error.description, transient: true) }
    }

    deinit { close(fd) }

    /// Writes all of `bytes` at `offset`; nil, or what went wrong.
    func write(_ bytes: UnsafeRawBufferPointer, at offset: Int64) -> FileReadError? {
        var done = 0
        while done < bytes.count {
            let n = pwrite(fd, bytes.baseAddress! + done, bytes.count - done, off_t(offset) + off_t(done))
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return FileReadError("cannot write the samples' temporary sort file: \(String(cString: strerror(errno)))", transient: true) }
            done += n
        }
        return nil
    }

    /// Fills `buffer` from `offset`, short only at the end of the file.
    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) -> Result<Int, FileReadError> {
        let (done, code) = FileSystem.readFully(fd, into: buffer, at: offset)
        guard let code else { return .success(done) }
        return .failure(FileReadError("cannot read the samples' temporary sort file: \(String(cString: strerror(code)))", transient: true))
    }
}

/// Where a sorted run lies in the ``SpillFile``.
struct SpilledRun: Sendable {
    var offset: Int64
    var length: Int64
}

/// Appends bytes to a ``SpillFile`` from `offset` on, 1 MiB at a time. The first failure is
/// kept and thrown by `finish`, so that records can be appended from inside a closure.
struct SpillWriter {
    private let file: SpillFile
    private var position: Int64
    private var block: [UInt8] = []
    private var failure: FileReadError?
    private static let blockSize = 1 << 20

    init(_ file: SpillFile, at offset: Int64) {
        self.file = file; position = offset
        block.reserveCapacity(SpillWriter.blockSize + 4096)
    }

    mutating func append(_ bytes: UnsafeRawBufferPointer) {
        block.append(contentsOf: bytes)
        if block.count >= SpillWriter.blockSize { flush() }
    }

    /// Writes what is left.
    mutating func finish() throws(FileReadError) {
        flush()
        if let failure { throw failure }
    }

    private mutating func flush() {
        if failure == nil { failure = block.withUnsafeBytes { file.write($0, at: position) } }
        position += Int64(block.count)
        block.removeAll(keepingCapacity: true)
    }
}

/// A private file for a reader's scratch data.
enum TemporaryFile {
    /// `$TMPDIR`, or /tmp.
    static var folder: String { ProcessInfo.processInfo.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp" }

    /// A new 0600 file in `folder` named after `prefix`: its open descriptor and its path.
    static func make(in folder: String = folder, prefix: String) throws(FileReadError) -> (fd: Int32, path: String) {
        var template = Array((folder + "/" + prefix + "-XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { throw FileReadError("cannot make a temp file in \(folder): \(String(cString: strerror(errno)))") }
        return (fd, String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
    }
}
