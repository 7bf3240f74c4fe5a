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
        // Folder anchors stay unparsed until a folder's digest says it changed.
        var previous: [String: Data] = [:]
        var changes = AnchorChanges()
        for (key, data) in anchor.entries {
            if key.hasPrefix(FolderAnchor.prefix) { previous[String(key.dropFirst(FolderAnchor.prefix.count))] = data }
            else { changes.removals.insert(key) }      // an entry of an older layout
        }
        var current: [String: FolderAnchor] = [:]      // folders that changed in this scan
        var visited = Set<String>()
        var goneKeys: [String] = []
        var items: [Item] = []
        var examined = 0
        var withoutGPS = 0

        func flush() async throws {
            guard !items.isEmpty || !changes.isEmpty else { return }
            try await sink.commit(items, anchor: changes)
            items.removeAll(keepingCapacity: true); changes = AnchorChanges()
        }

        for root in roots {
            guard FileSystem.isDirectory(root) else { await sink.warn("\(root): not a folder; skipped"); continue }
            var walker = FolderWalker(root: root, excludes: excludes, isPhoto: PhotosAdapter.isPhoto)
            while let listing = walker.next() {
                guard visited.insert(listing.path).inserted else { continue }
                examined += listing.photos.count
                await sink.progress(examined: examined, total: nil)
                let sidecars = listing.photos.map { PhotosAdapter.sidecar(of: $0.name, in: listing) }
                let digest = FolderAnchor.digest(of: listing, sidecars: sidecars.map { $0?.stamp ?? "" })
                if let old = previous[listing.path], FolderAnchor.matches(old, digest: digest) { continue }   // unchanged: nothing opened

                let before = previous[listing.path].flatMap(FolderAnchor.init) ?? FolderAnchor(digest: "")
                var after = FolderAnchor(digest: digest)
                for (entry, sidecar) in zip(listing.photos, sidecars) {
                    var record = FolderAnchor.Record(size: entry.size, mtime: entry.mtime, inode: entry.inode, sidecar: sidecar?.stamp ?? "", key: nil)
                    if let old = before.records[entry.name], old.size == record.size, old.mtime == record.mtime,
                       old.inode == record.inode, old.sidecar == record.sidecar {
                        after.records[entry.name] = old
                        continue
                    }
                    let path = listing.path + "/" + entry.name
                    do {
                        var (meta, _, _) = try PhotoGeotagReader.read(path: path)
                        if let sidecar {
                            do { meta = PhotoGeotagReader.merge(file: meta, sidecar: try PhotoGeotagReader.read(path: listing.path + "/" + sidecar.name).0) }
                            catch { await sink.warn("\(listing.path)/\(sidecar.name): \(error.reason); the photo's own metadata is used") }
                        }
                        if let item = PhotoItem.make(meta, fileName: entry.name, size: entry.size) {
                            record.key = item.key
                            items.append(item)
                        } else {
                            withoutGPS += 1
                        }
                    } catch {
                        await sink.warn("\(path): \(error.reason); skipped")
                    }
                    after.records[entry.name] = record
                }
                for (name, old) in before.records where after.records[name] == nil {
                    if let key = old.key { goneKeys.append(key) }
                }
                current[listing.path] = after
                changes.updates[FolderAnchor.prefix + listing.path] = after.encoded
                if items.count >= PhotosAdapter.chunkSize || changes.updates.count >= 64 { try await flush() }
            }
            for problem in walker.problems { await sink.warn(problem) }
        }

        // Folders gone from disk (or no longer configured): every photo in them is gone.
        for (path, data) in previous where !visited.contains(path) {
            changes.removals.insert(FolderAnchor.prefix + path)
            goneKeys += FolderAnchor(data)?.records.values.compactMap(\.key) ?? []
        }
        // A tombstone only when no other copy anywhere in this instance still has the key.
        if !goneKeys.isEmpty {
            var live = Set<String>()
            for (path, data) in previous where visited.contains(path) && current[path] == nil {
                FolderAnchor(data)?.records.values.forEach { if let k = $0.key { live.insert(k) } }
            }
            for folder in current.values { folder.records.values.forEach { if let k = $0.key { live.insert(k) } } }
            for key in Set(goneKeys) where !live.contains(key) { items.append(Item.tombstone(endpoint: .photos, key: key)) }
        }
        try await flush()
        if withoutGPS > 0 { await sink.warn("\(withoutGPS) photos without GPS (or without a capture time) were skipped") }
    }

    static func isPhoto(_ name: String) -> Bool {
        guard let dot = name.lastIndex(of: "."), name.index(after: dot) < name.endIndex else { return false }
        return photoExtensions.contains(name[name.index(after: dot)...].lowercased())
    }

    /// `IMG_1.jpg.xmp` (darktable, digiKam) or `IMG_1.xmp` (Lightroom), from the folder's listing: no extra syscall.
    static func sidecar(of name: String, in listing: FolderWalker.Listing) -> (name: String, stamp: String)? {
        guard !listing.sidecars.isEmpty else { return nil }
        var candidates = [name + ".xmp", name + ".XMP"]
        if let dot = name.lastIndex(of: ".") { candidates += [String(name[..<dot]) + ".xmp", String(name[..<dot]) + ".XMP"] }
        for candidate in candidates { if let stamp = listing.sidecars[candidate] { return (candidate, stamp) } }
        return nil
    }
}
