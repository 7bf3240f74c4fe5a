import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// An errno turned into a sentence naming the file.
public struct FileSystemError: Error, Sendable, CustomStringConvertible {
    public var path: String
    public var errno: Int32
    public var operation: String
    public var message: String {
        let reason = String(cString: strerror(errno))
        return "cannot \(operation): \(reason.prefix(1).lowercased() + reason.dropFirst())"
    }
    public var description: String { "\(path): \(message)" }
}

/// The few file operations the agent needs, with errors that name the path.
public enum FileSystem {
    /// The name of a `readdir` entry, read where it lies. A `dirent` record is only as long as
    /// its name (`d_reclen`), so copying the struct's 256-byte `d_name` reads past the last
    /// record of the buffer.
    public static func entryName(_ entry: UnsafePointer<dirent>) -> String {
        let offset = MemoryLayout<dirent>.offset(of: \dirent.d_name)!
        return String(cString: (UnsafeRawPointer(entry) + offset).assumingMemoryBound(to: CChar.self))
    }

    /// `~` and `$HOME` at the start of a path become the home directory; `$VAR/…` takes the
    /// environment value (for `$CREDENTIALS_DIRECTORY/hearthloom.token` under systemd).
    public static func expandPath(_ path: String) -> String {
        if path == "~" { return home }
        if path.hasPrefix("~/") { return home + path.dropFirst(1) }
        if path.hasPrefix("$") {
            let name = path.dropFirst().prefix { $0.isLetter || $0.isNumber || $0 == "_" }
            let value = name == "HOME" ? home : FileSystem.environment(String(name))
            if let value { return value + path.dropFirst(1 + name.count) }
        }
        return path
    }

    public static var home: String {
        if let h = environment("HOME"), !h.isEmpty { return h }
        if let pw = getpwuid(getuid()), let dir = pw.pointee.pw_dir { return String(cString: dir) }
        return "/"
    }

    /// One variable, read with `getenv`: building `ProcessInfo.environment` costs more than a
    /// capture's whole SQLite transaction.
    public static func environment(_ name: String) -> String? { getenv(name).map { String(cString: $0) } }

    public static func exists(_ path: String) -> Bool { access(path, F_OK) == 0 }

    public static func isDirectory(_ path: String) -> Bool {
        var st = stat()
        return stat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFDIR
    }

    /// Permission bits of `path` (`st_mode & 0o7777`).
    public static func mode(_ path: String) throws(FileSystemError) -> mode_t {
        var st = stat()
        guard stat(path, &st) == 0 else { throw FileSystemError(path: path, errno: errno, operation: "stat") }
        return st.st_mode & 0o7777
    }

    /// The file's bytes from `offset`, at most `limit` of them, read in one pass into a buffer
    /// sized from `fstat` (a 100 MB export is not copied while it grows).
    public static func readBytes(_ path: String, from offset: Int64 = 0, limit: Int = 64 << 20) throws(FileSystemError) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw FileSystemError(path: path, errno: errno, operation: "read") }
        defer { close(fd) }
        var st = stat()
        let expected = fstat(fd, &st) == 0 ? max(0, min(Int(Int64(st.st_size) - offset), limit)) : 0
        var out = [UInt8](repeating: 0, count: expected + 1)      // one more to see growth
        var filled = 0
        var position = offset
        while filled < limit {
            if filled == out.count { out.append(contentsOf: [UInt8](repeating: 0, count: min(max(out.count, 65536), limit - filled))) }
            let n = out.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + filled, min($0.count, limit) - filled, off_t(position)) }
            if n < 0 { if errno == EINTR { continue }; throw FileSystemError(path: path, errno: errno, operation: "read") }
            if n == 0 { break }
            filled += n; position += Int64(n)
        }
        out.removeLast(out.count - filled)
        return out
    }

    /// Fills `buffer` from `offset` by `pread`, retrying interrupted calls: the bytes read (short
    /// only where the file ends), and the errno of a read that failed after them.
    public static func readFully(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) -> (count: Int, errno: Int32?) {
        var done = 0
        while done < buffer.count {
            let n = pread(fd, buffer.baseAddress! + done, buffer.count - done, off_t(offset) + off_t(done))
            if n > 0 { done += n } else if n == 0 { break } else if errno != EINTR { return (done, errno) }
        }
        return (done, nil)
    }

    public static func readText(_ path: String) throws(FileSystemError) -> String {
        String(decoding: try readBytes(path), as: UTF8.self)
    }

    /// Creates `path` and its parents; new directories get `mode` (0700 for state and config).
    public static func ensureDirectory(_ path: String, mode: mode_t = 0o700) throws(FileSystemError) {
        if isDirectory(path) { return }
        let parent = path.deletingLastPathComponent
        if !parent.isEmpty, parent != path, parent != "/" { try ensureDirectory(parent, mode: mode) }
        if mkdir(path, mode) != 0 && errno != EEXIST {
            throw FileSystemError(path: path, errno: errno, operation: "create directory")
        }
    }

    /// Writes via a temporary file, fsync and rename, so readers see the old or the new
    /// content and never a torn file. The file is created with `mode` before any byte is written,
    /// so a secret is never briefly readable by others.
    public static func writeAtomically(_ path: String, _ bytes: [UInt8], mode: mode_t) throws(FileSystemError) {
        let tmp = path + ".tmp.\(getpid())"
        let fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode)
        guard fd >= 0 else { throw FileSystemError(path: tmp, errno: errno, operation: "create") }
        var ok = fchmod(fd, mode) == 0
        var offset = 0
        while ok && offset < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + offset, $0.count - offset) }
            if n < 0 { if errno == EINTR { continue }; ok = false } else { offset += n }
        }
        if ok { ok = fsync(fd) == 0 }
        let saved = errno
        close(fd)
        guard ok, rename(tmp, path) == 0 else {
            let e = ok ? errno : saved
            unlink(tmp)
            throw FileSystemError(path: path, errno: e, operation: "write")
        }
    }

    public static func remove(_ path: String) { unlink(path) }

    public static func baseName(_ path: String) -> String { path.lastPathComponent }
}

/// Path-component helpers without pulling in Foundation's NSString.
extension String {
    public var lastPathComponent: String {
        let trimmed = self.count > 1 && hasSuffix("/") ? String(dropLast()) : self
        guard let slash = trimmed.lastIndex(of: "/") else { return trimmed }
        return String(trimmed[trimmed.index(after: slash)...])
    }
    public var deletingLastPathComponent: String {
        let trimmed = self.count > 1 && hasSuffix("/") ? String(dropLast()) : self
        guard let slash = trimmed.lastIndex(of: "/") else { return "" }
        return slash == trimmed.startIndex ? "/" : String(trimmed[..<slash])
    }
    public func appendingPath(_ component: String) -> String { hasSuffix("/") ? self + component : self + "/" + component }
}
