import IngestCore
#if canImport(Glibc)
import Glibc
#endif

/// Walks a folder tree one folder at a time: hidden entries skipped, symbolic links followed,
/// and a folder reached twice (a link loop, a bind mount) walked once, by its device and inode.
struct FolderWalker {
    /// One folder's photos and `.xmp` sidecars, with what one `stat` each says of them.
    struct Listing {
        var path: String
        var photos: [Entry] = []
        var sidecars: [String: String] = [:]        // file name → "size:mtime"
    }

    struct Entry {
        var name: String
        var size: Int64
        var mtime: Int64       // nanoseconds
        var inode: UInt64
    }

    private var folders: [String]
    private var visited: Set<[UInt64]> = []
    private let excludes: [String]
    private let isPhoto: (String) -> Bool
    /// One line per folder that could not be read.
    private(set) var problems: [String] = []

    init(root: String, excludes: [String], isPhoto: @escaping (String) -> Bool) {
        self.folders = [root.count > 1 && root.hasSuffix("/") ? String(root.dropLast()) : root]
        self.excludes = excludes
        self.isPhoto = isPhoto
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
        guard fd >= 0 else { problems.append("\(folder): cannot open folder: \(String(cString: strerror(errno)))"); return nil }
        var st = stat()
        guard fstat(fd, &st) == 0, visited.insert([UInt64(st.st_dev), UInt64(st.st_ino)]).inserted, let dir = fdopendir(fd) else {
            close(fd); return nil
        }
        defer { closedir(dir) }
        var listing = Listing(path: folder)
        var subfolders: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(cString: $0.baseAddress!.assumingMemoryBound(to: CChar.self)) }
            if name.hasPrefix(".") { continue }      // hidden files and folders, and . and ..
            let type = entry.pointee.d_type
            let sidecar = name.hasSuffix(".xmp") || name.hasSuffix(".XMP")
            // Only what could matter gets a stat: folders, links, photos and sidecars.
            guard type == DT_DIR || type == DT_LNK || type == DT_UNKNOWN || sidecar || isPhoto(name) else { continue }
            let path = folder + "/" + name
            if excluded(path) { continue }
            var s = stat()
            guard fstatat(dirfd(dir), name, &s, 0) == 0 else { continue }     // links followed: stat, not lstat
            let mtime = Int64(s.st_mtim.tv_sec) * 1_000_000_000 + Int64(s.st_mtim.tv_nsec)
            switch s.st_mode & S_IFMT {
            case S_IFDIR: subfolders.append(path)
            case S_IFREG where sidecar: listing.sidecars[name] = "\(s.st_size):\(mtime)"
            case S_IFREG where isPhoto(name):
                listing.photos.append(Entry(name: name, size: Int64(s.st_size), mtime: mtime, inode: UInt64(s.st_ino)))
            default: break
            }
        }
        listing.photos.sort { $0.name < $1.name }
        folders.append(contentsOf: subfolders.sorted(by: >))
        return listing
    }
}
