import IngestCore
#if canImport(Glibc)
import Glibc
#endif

/// Walks a folder tree one folder at a time: hidden entries skipped, symbolic links followed,
/// and a folder reached twice (a link loop, a bind mount) walked once, by its device and inode.
/// Only files whose name `accepts` are stat'ed, so a big tree of other files costs one readdir.
struct FolderWalker {
    /// One folder's accepted files, in name order, with what one `stat` each says of them.
    struct Listing {
        var path: String
        var files: [Entry] = []
    }

    struct Entry: Sendable {
        var name: String
        var stamp: FileStamp
    }

    private var folders: [String]
    private var visited: Set<[UInt64]> = []
    private let excludes: [String]
    private let accepts: (String) -> Bool
    /// One line per folder that could not be read.
    private(set) var problems: [String] = []
    /// Folders that could not be opened: what was in them is unknown, not gone.
    private(set) var unreadable: [String] = []

    init(root: String, excludes: [String], accepts: @escaping (String) -> Bool) {
        self.folders = [root.count > 1 && root.hasSuffix("/") ? String(root.dropLast()) : root]
        self.excludes = excludes
        self.accepts = accepts
    }

    /// The next folder, depth-first in name order; nil when the tree is done.
    mutating func next() -> Listing? {
        while let folder = folders.popLast() {
            if let listing = read(folder) { return listing }
        }
        return nil
    }

    private func excluded(_ path: String) -> Bool { !excludes.isEmpty && excludes.contains { fnmatch($0, path, 0) == 0 } }

    private mutating func read(_ folder: String) -> Listing? {
        let fd = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else {
            problems.append("\(folder): cannot open folder: \(String(cString: strerror(errno)))")
            unreadable.append(folder)
            return nil
        }
        var st = stat()
        guard fstat(fd, &st) == 0, visited.insert([UInt64(st.st_dev), UInt64(st.st_ino)]).inserted, let dir = fdopendir(fd) else {
            close(fd); return nil
        }
        defer { closedir(dir) }
        var listing = Listing(path: folder)
        var subfolders: [String] = []
        while let entry = readdir(dir) {
            let name = FileSystem.entryName(entry)
            if name.hasPrefix(".") { continue }      // hidden files and folders, and . and ..
            let type = entry.pointee.d_type
            // Only what could matter gets a stat: folders, links and accepted files.
            guard type == DT_DIR || type == DT_LNK || type == DT_UNKNOWN || accepts(name) else { continue }
            let path = folder + "/" + name
            if excluded(path) { continue }
            var s = stat()
            guard fstatat(dirfd(dir), name, &s, 0) == 0 else { continue }     // links followed: stat, not lstat
            switch s.st_mode & S_IFMT {
            case S_IFDIR: subfolders.append(path)
            case S_IFREG where accepts(name):
                listing.files.append(Entry(name: name, stamp: FileStamp(s)))
            default: break
            }
        }
        listing.files.sort { $0.name < $1.name }
        folders.append(contentsOf: subfolders.sorted(by: >))
        return listing
    }
}
