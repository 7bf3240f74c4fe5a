import IngestCore
#if canImport(Glibc)
import Glibc
#endif

/// The files under an adapter's `Path=` entries (files, or folder trees walked with
/// ``FolderWalker``), with what is needed to tell a deleted file from one that could not be seen.
struct FileListing {
    var files: [FolderWalker.Entry] = []
    /// Folders whose listing is complete: a file of theirs that is missing was deleted.
    var listedFolders = Set<String>()
    /// Roots that exist and were walked: a folder under one that is now missing was deleted.
    var walkedRoots: [String] = []
    /// Files named directly in `Path=` that are known to be gone (ENOENT).
    var missingFiles = Set<String>()

    func isKnownGone(_ path: String) -> Bool {
        if missingFiles.contains(path) { return true }
        let folder = path.deletingLastPathComponent
        if listedFolders.contains(folder) { return true }
        return walkedRoots.contains { folder.hasPrefix($0 + "/") } && !FileSystem.exists(folder)
    }

    /// Lists `roots`, warning `sink` about any that cannot be read. A missing root that `accepts`
    /// does not name as a file (a folder last time) is not taken as a deleted file.
    static func list(roots: [String], excludes: [String], accepts: @escaping (String) -> Bool, sink: some ItemSink) async -> FileListing {
        var listing = FileListing()
        for root in roots {
            var st = stat()
            guard stat(root, &st) == 0 else {
                if errno == ENOENT, !root.hasSuffix("/"), accepts(root.lastPathComponent) { listing.missingFiles.insert(root) }
                await sink.warn("\(root): \(String(cString: strerror(errno))); skipped, and nothing from it is taken as deleted")
                continue
            }
            if st.st_mode & S_IFMT != S_IFDIR {
                listing.files.append(FolderWalker.Entry(name: root, stamp: FileStamp(st)))
                continue
            }
            var walker = FolderWalker(root: root, excludes: excludes, accepts: accepts)
            while let folder = walker.next() {
                listing.listedFolders.insert(folder.path)
                for var entry in folder.files {
                    entry.name = folder.path + "/" + entry.name
                    listing.files.append(entry)
                }
            }
            for problem in walker.problems { await sink.warn(problem) }
            if walker.unreadable.isEmpty { listing.walkedRoots.append(root.hasSuffix("/") ? String(root.dropLast()) : root) }
        }
        return listing
    }
}
