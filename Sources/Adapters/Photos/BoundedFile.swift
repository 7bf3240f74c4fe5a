import Glibc
import IngestCore

/// The single owner of one read-only file descriptor, and the only place bytes leave the disk.
///
/// Funnelling every read through `read(at:count:)` keeps the safety limits in one spot:
/// no read may reach past the size seen at open, and the total read from one file is
/// capped by `budget`, so a hostile or corrupt file can never make the reader slurp a
/// whole raw file or loop on ever-new offsets.
final class BoundedFile {
    /// Metadata never needs more than this; anything asking for more is broken or hostile.
    static let defaultBudget = 4 << 20

    /// File size in bytes when it was opened.
    let size: Int
    let budget: Int
    /// Total bytes returned by `pread` so far: the cost of reading this file's metadata.
    private(set) var bytesRead = 0
    private let descriptor: Int32
    /// The bytes of `range`, read whole by the first `read(at:count:keeping:)` inside it.
    private var kept: (range: Range<Int>, bytes: [UInt8])?

    /// - Parameters:
    ///   - folder: the open folder `path` is relative to; nil for a path from the working directory.
    ///   - statedSize: the size a `stat` of a regular file just gave (a folder walk's): no `fstat`
    ///     then. Should the file have been replaced since, no read passes that size, and one past
    ///     the file's end fails as a shrunk file's does.
    init(path: String, in folder: OpenFolder? = nil, statedSize: Int? = nil, budget: Int = BoundedFile.defaultBudget) throws(PhotoReadError) {
        // O_NONBLOCK keeps open() from waiting forever on a FIFO; it changes nothing for regular files.
        let descriptor = withExtendedLifetime(folder) { openat(folder?.descriptor ?? AT_FDCWD, path, O_RDONLY | O_CLOEXEC | O_NONBLOCK) }
        guard descriptor >= 0 else { throw PhotoReadError.system("cannot open file", errno: errno) }
        self.descriptor = descriptor
        self.budget = budget
        if let statedSize { self.size = statedSize } else { self.size = try BoundedFile.regularFileSize(descriptor) }
    }

    /// The size of the open file, closing it when it cannot be told or is no regular file.
    private static func regularFileSize(_ descriptor: Int32) throws(PhotoReadError) -> Int {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            let code = errno
            close(descriptor)
            throw PhotoReadError.system("cannot stat file", errno: code)
        }
        guard info.st_mode & S_IFMT == S_IFREG else {
            close(descriptor)
            throw PhotoReadError("not a regular file")
        }
        return Int(info.st_size)
    }

    deinit {
        close(descriptor)
    }

    /// Exactly `count` bytes at `offset`. When they lie inside `range`, all of `range` is read by
    /// the first such call and kept, and the later ones are served from it.
    func read(at offset: Int, count: Int, keeping range: Range<Int>) throws(PhotoReadError) -> ArraySlice<UInt8> {
        guard offset >= range.lowerBound, count <= range.upperBound - offset else { return try read(at: offset, count: count)[...] }
        let bytes: [UInt8]
        if let kept, kept.range == range { bytes = kept.bytes } else {
            bytes = try read(at: range.lowerBound, count: range.count)
            kept = (range, bytes)
        }
        let from = offset - range.lowerBound
        return bytes[from..<(from + count)]
    }

    /// Exactly `count` bytes starting at `offset`, or an error; never a short result.
    func read(at offset: Int, count: Int) throws(PhotoReadError) -> [UInt8] {
        guard offset >= 0, count >= 0, offset <= size, count <= size - offset else {
            throw PhotoReadError("read of \(count) bytes at offset \(offset.hex) is outside the file (size \(size))")
        }
        guard count <= budget - bytesRead else {
            throw PhotoReadError("reading \(count) more bytes at offset \(offset.hex) would exceed the \(budget >> 20) MiB metadata read budget")
        }
        // Not zero-filled first: pread writes every byte or the read fails, so zeroing would only
        // add a pass over every photo's bytes.
        var failure: PhotoReadError?
        let buffer = [UInt8](unsafeUninitializedCapacity: count) { raw, initialized in
            let (done, code) = FileSystem.readFully(descriptor, into: UnsafeMutableRawBufferPointer(raw), at: Int64(offset))
            if let code {
                failure = PhotoReadError.system("read failed at offset \((offset + done).hex)", errno: code)
            } else if done < count {
                failure = PhotoReadError("file ended at offset \((offset + done).hex) while reading; it shrank after it was opened")
            }
            if failure != nil { raw.initialize(repeating: 0) }   // the array must be fully initialized even when dropped
            initialized = count
        }
        if let failure { throw failure }
        bytesRead += count
        return buffer
    }
}

/// An open folder whose files are opened by name (`openat`), so the kernel walks the folder's
/// path once rather than once per photo in it.
final class OpenFolder: Sendable {
    let descriptor: Int32

    /// Nil when the folder cannot be opened (its files are then opened by their whole path).
    init?(_ path: String) {
        let descriptor = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        self.descriptor = descriptor
    }

    deinit { close(descriptor) }
}
