import FoundationEssentials
import IngestCore
#if canImport(Glibc)
import Glibc
#endif

/// `Type=photos`: where and when each photo was taken, from EXIF/XMP geotags, never the image.
///
/// The anchor keeps, per file, its size, mtime and inode (and its sidecar's), plus the key it
/// gave; an unchanged file is not opened again. The key comes from the photo's metadata, so a
/// moved, renamed or copied photo is the same item.
public struct PhotosAdapter: DeviceAdapter {
    public static let type = "photos"
    public static let summary = "geotags (place, time, camera) of JPEG, HEIC/AVIF, PNG, TIFF/DNG/raw, WebP photos and .xmp sidecars"
    public static let configKeys: [ConfigKey] = [
        ConfigKey("Path", .path, repeated: true, "a folder to scan recursively"),
        ConfigKey("Exclude", .string, repeated: true, "a glob over the whole path to leave out"),
    ]
    public static let sampleConfig = String(decoding: PackageResources.photos_conf, as: UTF8.self)

    static let photoExtensions: Set<String> = ["jpg", "jpeg", "jpe", "heic", "heif", "avif", "hif", "png", "tif", "tiff", "dng",
                                               "cr2", "nef", "nrw", "arw", "srw", "orf", "rw2", "pef", "webp"]
    /// Files per transaction: small enough that an interrupted scan loses little work.
    static let chunkSize = 500

    let roots: [String]
    let excludes: [String]

    public init(config: AdapterConfig) throws(ConfigError) {
        roots = config.section.paths("Path")
        excludes = config.section.strings("Exclude")
        guard !roots.isEmpty else { throw ConfigError(file: config.file, key: "Path", "missing; name at least one folder to scan") }
    }

    public func scan(since anchor: Anchor, into sink: some ItemSink) async throws {
        var previous: [String: FileState] = [:]
        for (key, data) in anchor.entries where key.hasPrefix("f:") {
            if let state = FileState(data) { previous[String(key.dropFirst(2))] = state }
        }
        var keysByPath = previous.compactMapValues(\.itemKey)
        var seen = Set<String>()
        var items: [Item] = []
        var changes = AnchorChanges()
        var pending = 0
        var examined = 0
        var withoutGPS = 0

        func flush() async throws {
            guard pending > 0 || !items.isEmpty else { return }
            try await sink.commit(items, anchor: changes)
            items.removeAll(keepingCapacity: true); changes = AnchorChanges(); pending = 0
        }

        for root in roots {
            guard FileSystem.isDirectory(root) else { await sink.warn("\(root): not a folder; skipped"); continue }
            var walker = FolderWalker(root: root, excludes: excludes)
            while let file = walker.next() {
                let ext = file.path.fileExtension
                guard PhotosAdapter.photoExtensions.contains(ext) else { continue }
                seen.insert(file.path)
                examined += 1
                if examined % 1000 == 0 { await sink.progress(examined: examined, total: nil) }
                let sidecar = PhotosAdapter.sidecar(of: file.path)
                let state = FileState(size: file.size, mtime: file.mtime, inode: file.inode,
                                      sidecarStamp: sidecar.map { "\($0.size):\($0.mtime)" } ?? "", itemKey: nil)
                if let old = previous[file.path], old.sameFile(as: state) { continue }   // unchanged: not opened

                var recorded = state
                do {
                    var (meta, _, _) = try PhotoGeotagReader.read(path: file.path)
                    if let sidecar, let (side, _, _) = try? PhotoGeotagReader.read(path: sidecar.path) {
                        meta = PhotoGeotagReader.merge(file: meta, sidecar: side)
                    }
                    if let item = PhotoItem.make(meta, fileName: FileSystem.baseName(file.path), size: file.size) {
                        recorded.itemKey = item.key
                        items.append(item)
                    } else {
                        withoutGPS += 1
                    }
                } catch {
                    await sink.warn("\(file.path): \(error.reason); skipped")
                }
                keysByPath[file.path] = recorded.itemKey
                changes.updates["f:" + file.path] = recorded.encoded
                pending += 1
                if pending >= PhotosAdapter.chunkSize { try await flush() }
            }
            for problem in walker.problems { await sink.warn(problem) }
        }

        // Gone from disk: forget the file; send a tombstone only when no other copy keeps its key.
        let gone = previous.keys.filter { !seen.contains($0) }
        if !gone.isEmpty {
            for path in gone { keysByPath[path] = nil }
            let stillThere = Set(keysByPath.values)
            var tombstoned = Set<String>()
            for path in gone {
                changes.removals.insert("f:" + path)
                pending += 1
                if let key = previous[path]?.itemKey, !stillThere.contains(key), tombstoned.insert(key).inserted {
                    items.append(Item.tombstone(endpoint: .photos, key: key))
                }
            }
        }
        try await flush()
        if withoutGPS > 0 { await sink.warn("\(withoutGPS) photos without GPS were skipped") }
    }

    /// `IMG_1.jpg.xmp` (darktable, digiKam) or `IMG_1.xmp` (Lightroom), whichever exists.
    static func sidecar(of path: String) -> (path: String, size: Int64, mtime: Int64)? {
        let dot = path.lastIndex(of: ".")
        for candidate in [path + ".xmp", path + ".XMP"] + (dot.map { [String(path[..<$0]) + ".xmp", String(path[..<$0]) + ".XMP"] } ?? []) {
            var st = stat()
            if stat(candidate, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG {
                return (candidate, Int64(st.st_size), Int64(st.st_mtim.tv_sec) * 1_000_000_000 + Int64(st.st_mtim.tv_nsec))
            }
        }
        return nil
    }
}

/// What the anchor remembers of one file.
struct FileState: Equatable {
    var size: Int64
    var mtime: Int64
    var inode: UInt64
    var sidecarStamp: String
    var itemKey: String?

    func sameFile(as other: FileState) -> Bool {
        size == other.size && mtime == other.mtime && inode == other.inode && sidecarStamp == other.sidecarStamp
    }

    /// `size mtime inode sidecar key` as text: compact and easy to read in the state DB.
    var encoded: Data { Data("\(size) \(mtime) \(inode) \(sidecarStamp.isEmpty ? "-" : sidecarStamp) \(itemKey ?? "-")".utf8) }

    init(size: Int64, mtime: Int64, inode: UInt64, sidecarStamp: String, itemKey: String?) {
        self.size = size; self.mtime = mtime; self.inode = inode; self.sidecarStamp = sidecarStamp; self.itemKey = itemKey
    }

    init?(_ data: Data) {
        let parts = String(decoding: data, as: UTF8.self).split(separator: " ").map(String.init)
        guard parts.count == 5, let size = Int64(parts[0]), let mtime = Int64(parts[1]), let inode = UInt64(parts[2]) else { return nil }
        self.init(size: size, mtime: mtime, inode: inode, sidecarStamp: parts[3] == "-" ? "" : parts[3], itemKey: parts[4] == "-" ? nil : parts[4])
    }
}

extension String {
    var fileExtension: String {
        guard let dot = lastIndex(of: "."), let slash = lastIndex(of: "/") ?? Optional(startIndex), dot > slash else { return "" }
        return self[index(after: dot)...].lowercased()
    }
}
