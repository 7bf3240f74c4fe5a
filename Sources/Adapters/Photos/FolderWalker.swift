import IngestCore
#if canImport(Glibc)
import Glibc
#endif

/// Walks a folder tree depth-first: hidden entries skipped, symbolic links followed, and a
/// folder reached twice (a link loop, a bind mount) walked once, by its device and inode.
struct FolderWalker {
    struct File { var path: String; var size: Int64; var mtime: Int64; var inode: UInt64 }

    private var folders: [String]
    private var files: [File] = []
    private var visited: Set<[UInt64]> = []
    private let excludes: [String]
    /// One line per folder that could not be read.
    private(set) var problems: [String] = []

    init(root: String, excludes: [String]) {
        self.folders = [root.count > 1 && root.hasSuffix("/") ? String(root.dropLast()) : root]
        self.excludes = excludes
    }

    mutating func next() -> File? {
        while files.isEmpty {
            guard let folder = folders.popLast() else { return nil }
            read(folder)
        }
        return files.removeLast()
    }

    private func excluded(_ path: String) -> Bool { excludes.contains { fnmatch($0, path, 0) == 0 } }

    private mutating func read(_ folder: String) {
        let fd = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { problems.append("\(folder): cannot open folder: \(String(cString: strerror(errno)))"); return }
        var st = stat()
        guard fstat(fd, &st) == 0, visited.insert([UInt64(st.st_dev), UInt64(st.st_ino)]).inserted else { close(fd); return }
        guard let dir = fdopendir(fd) else { close(fd); return }
        defer { closedir(dir) }
        var names: [(String, UInt8)] = []
        while let entry = readdir(dir) {
            let (name, type) = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                (String(cString: raw.baseAddress!.assumingMemoryBound(to: CChar.self)), entry.pointee.d_type)
            }
            if name.hasPrefix(".") { continue }      // hidden files and folders, and . and ..
            names.append((name, type))
        }
        // Sorted, so scans and their chunks come out in a stable order.
        for (name, type) in names.sorted(by: { $0.0 > $1.0 }) {
            let path = folder + "/" + name
            if excluded(path) { continue }
            var s = stat()
            // Regular files and folders need one stat; links are followed (stat, not lstat).
            guard fstatat(dirfd(dir), name, &s, 0) == 0 else { continue }
            switch s.st_mode & S_IFMT {
            case S_IFDIR: folders.append(path)
            case S_IFREG:
                files.append(File(path: path, size: Int64(s.st_size),
                                  mtime: Int64(s.st_mtim.tv_sec) * 1_000_000_000 + Int64(s.st_mtim.tv_nsec), inode: UInt64(s.st_ino)))
            default: _ = type
            }
        }
    }
}
