import FoundationEssentials
import IngestCore
#if canImport(Glibc)
import Glibc
#endif

/// `Type=photos`: where and when each photo or video was taken, from EXIF/XMP/QuickTime geotags, never the image.
///
/// The anchor keeps, per file, its size, mtime and inode (and its sidecar's), plus the key it
/// gave; an unchanged file is not opened again. The key comes from the photo's metadata, so a
/// moved, renamed or copied photo is the same item.
public struct PhotosAdapter: DeviceAdapter {
    public static let type = "photos"
    public static let summary = "geotags (place, time, camera) of JPEG, HEIC/AVIF, PNG, TIFF/DNG/raw, WebP photos, MP4/MOV/M4V/3GP videos (Live Photos as one), .xmp sidecars and Google Photos Takeout (folder or zip)"
    enum Key {
        static let path = ConfigKey("Path", repeated: .path, "a folder to scan recursively")
        static let exclude = ConfigKey("Exclude", repeated: .string, "a glob over the whole path to leave out")
    }
    public static let configKeys: [any ConfigKeyProtocol] = [Key.path, Key.exclude]
    public static let sampleConfig = String(decoding: PackageResources.photos_conf, as: UTF8.self)

    static let movieExtensions: Set<String> = ["mp4", "mov", "m4v", "3gp", "3g2", "qt"]
    static let photoExtensions: Set<String> = movieExtensions.union(["jpg", "jpeg", "jpe", "heic", "heif", "avif", "hif", "png", "tif",
                                                                     "tiff", "dng", "cr2", "nef", "nrw", "arw", "srw", "orf", "rw2", "pef", "webp"])
    /// Files per transaction: small enough that an interrupted scan loses little work, and that
    /// the last one, delivered after the reading ends, is one POST to the node; large enough that
    /// fsyncs are not what a full scan waits on.
    static let chunkSize = 1000
    /// Photos being read at most before the oldest folder read is recorded: enough that both cores
    /// have work while the scan task lists and records, few enough that their outcomes stay small.
    static let photosReadAhead = 1000

    let roots: [String]
    let excludes: [String]

    public init(config: AdapterConfig) throws(ConfigError) {
        roots = try config.section.value(Key.path, where: { !$0.isEmpty }, else: { _ in "missing; name at least one folder to scan" })
        excludes = config.section[Key.exclude]
    }

    public var watchedPaths: [String] { roots }

    /// `doctor`: every `Path=` exists and may be read.
    public func doctorChecks() async -> [DoctorCheck] { DoctorCheck.paths(watchedPaths) }

    public func scan(since anchor: Anchor, into sink: some ItemSink) async throws {
        // Folder entries stay unparsed until a folder's digest says it changed.
        var ledger = FileLedger(anchor: anchor, prefix: FolderAnchor.prefix, into: sink, itemsPerChunk: PhotosAdapter.chunkSize, entriesPerChunk: 64)
        var visited = Set<String>()
        var examined = 0
        var withoutGPS = 0

        for root in roots {
            guard FileSystem.isDirectory(root) else { await sink.warn("\(root): not a folder; skipped"); continue }
            var walker = FolderWalker(root: root, excludes: excludes, accepts: { PhotosAdapter.isPhoto($0) || PhotoFolder.isSidecar($0) || TakeoutZip.isZip($0) })
            // Changed folders are read while the next ones are listed and the older ones recorded,
            // so the cores do not wait on the walk or the queue.
            var reading: [Reading] = []
            while let next = walker.next() {
                let listing = PhotoFolder(next)
                guard visited.insert(listing.path).inserted else { continue }
                examined += listing.photos.count
                await sink.progress(examined: examined, total: nil)
                for zip in listing.zips {
                    visited.insert(listing.path + "/" + zip.name)
                    withoutGPS += try await TakeoutZip.scan(listing.path + "/" + zip.name, stamp: zip.stamp, into: &ledger, sink: sink)
                }
                let sidecars = listing.photos.map { listing.sidecars(of: $0.name) }
                let digest = FolderAnchor.digest(of: listing, sidecars: sidecars.map { $0?.stamp ?? "" })
                if let old = ledger.stored[listing.path], FolderAnchor.matches(old, digest: digest) { continue }   // unchanged: nothing opened
                reading.append(Reading(listing, sidecars: sidecars, digest: digest, stored: ledger.stored[listing.path]))
                while reading.reduce(0, { $0 + $1.toRead.count }) > PhotosAdapter.photosReadAhead {
                    withoutGPS += try await record(reading.removeFirst(), into: &ledger, sink: sink)
                }
            }
            for folder in reading { withoutGPS += try await record(folder, into: &ledger, sink: sink) }
            for problem in walker.problems { await sink.warn(problem) }
        }

        // Folders gone from disk (or no longer configured): every photo in them is gone.
        for (path, data) in ledger.stored where !visited.contains(path) {
            ledger.remove(path, keys: FolderAnchor(data)?.itemKeys ?? [])
        }
        try await ledger.finish { _, data in FolderAnchor(data)?.itemKeys ?? [] }
        if withoutGPS > 0 { await sink.warn("\(withoutGPS) photos without GPS (or without a capture time) were skipped") }
    }

    /// A photo of a changed folder to read, with the sidecars that complete its metadata.
    struct PhotoToRead: Sendable {
        let entry: FolderWalker.Entry
        let sidecar: Sidecars?
    }

    /// A changed folder being read: its photos whose stamp or sidecar changed, on the other cores,
    /// and its anchor entry with the records of the rest.
    struct Reading {
        let path: String
        let before: FolderAnchor
        var after: FolderAnchor
        let toRead: [PhotoToRead]
        /// Every file's sidecars, by the file's name: a Live Photo's movie not read now may have to be.
        let sidecarsByName: [String: Sidecars]
        let outcomes: Task<[Outcome], Never>

        init(_ listing: PhotoFolder, sidecars: [Sidecars?], digest: String, stored: Data?) {
            path = listing.path
            before = stored.flatMap(FolderAnchor.init) ?? FolderAnchor(digest: "")
            after = FolderAnchor(digest: digest)
            after.records.reserveCapacity(listing.photos.count)
            var toRead: [PhotoToRead] = []
            var sidecarsByName: [String: Sidecars] = [:]
            // A record from before Live Photos has no pairing facts; they matter only beside a movie,
            // so a folder of stills keeps such records without opening a file again.
            let pairingMatters = listing.photos.contains { PhotosAdapter.isMovie($0.name) }
            for (entry, sidecar) in zip(listing.photos, sidecars) {
                if let sidecar { sidecarsByName[entry.name] = sidecar }
                if var old = before.records[entry.name], old.stamp.matches(entry.stamp), old.sidecar == (sidecar?.stamp ?? ""),
                   old.pairing != nil || !pairingMatters {
                    old.stamp = entry.stamp
                    after.records[entry.name] = old
                } else {
                    toRead.append(PhotoToRead(entry: entry, sidecar: sidecar))
                }
            }
            self.toRead = toRead
            self.sidecarsByName = sidecarsByName
            outcomes = Task { [toRead, path] in await PhotosAdapter.read(toRead, in: path) }
        }
    }

    /// Queues the items of a folder once read, writes its entry and commits when a chunk is full.
    /// Returns how many had no GPS.
    private func record(_ reading: Reading, into ledger: inout FileLedger<some ItemSink>, sink: some ItemSink) async throws -> Int {
        var after = reading.after
        var withoutGPS = 0
        var read: [PhotoRead] = []
        for (photo, outcome) in zip(reading.toRead, await reading.outcomes.value) {
            for warning in outcome.warnings { await sink.warn(warning) }
            if outcome.withoutGPS { withoutGPS += 1 }
            read.append(PhotoRead(name: photo.entry.name, item: outcome.item))
            after.records[photo.entry.name] = FolderAnchor.Record(stamp: photo.entry.stamp, sidecar: photo.sidecar?.stamp ?? "",
                                                                  key: outcome.item?.key, pairing: outcome.pairing)
        }
        for item in await settleLivePhotos(&after, read: read, reading: reading, ledger: &ledger, sink: sink) { ledger.queue(item) }
        // The keys of photos gone from the folder (a photo read again is not compared with its old key).
        ledger.lose(reading.before.records.compactMap { name, old in after.records[name] == nil ? old.key.map { ItemKey(endpoint: .photos, key: $0) } : nil })
        ledger.write(reading.path, after.encoded, keys: after.itemKeys)
        try await ledger.commitIfFull()
        return withoutGPS
    }

    /// What reading one photo gave.
    struct Outcome: Sendable {
        var item: Item?
        /// What the file offers for Live Photo pairing; nil when it could not be read.
        var pairing: LivePhoto.Facts?
        var withoutGPS = false
        var warnings: [String] = []
    }

    /// The outcomes of a run of a folder's photos, from `start` in the order given.
    private struct SliceOutcomes: Sendable {
        let start: Int
        let outcomes: [Outcome]
    }

    /// Reads the photos of one folder on every core: each read is a few `pread`s and a parse,
    /// independent of the others; the results come back in the order given.
    static func read(_ photos: [PhotoToRead], in folder: String) async -> [Outcome] {
        // A few slices per core, so one that is slow (a cold disk, a big sidecar) does not leave the others idle.
        let slices = max(1, min(4 * ProcessInfo.processInfo.activeProcessorCount, photos.count / 16))
        let sliceSize = (photos.count + slices - 1) / slices
        let opened = OpenFolder(folder)
        return await withTaskGroup(of: SliceOutcomes.self) { group in
            for start in stride(from: 0, to: photos.count, by: max(sliceSize, 1)) {
                let slice = Array(photos[start..<min(start + sliceSize, photos.count)])
                group.addTask {
                    SliceOutcomes(start: start, outcomes: slice.map {
                        readOne(folder: folder, opened, name: $0.entry.name, size: $0.entry.stamp.size, sidecar: $0.sidecar)
                    })
                }
            }
            var out = [Outcome](repeating: Outcome(), count: photos.count)
            for await slice in group { out.replaceSubrange(slice.start..<(slice.start + slice.outcomes.count), with: slice.outcomes) }
            return out
        }
    }

    /// - Parameter opened: `folder`, open, so its photos are opened by name; nil opens them by path.
    static func readOne(folder: String, _ opened: OpenFolder?, name: String, size: Int64, sidecar: Sidecars?) -> Outcome {
        var outcome = Outcome()
        func read(_ name: String, statedSize: Int? = nil) throws(PhotoReadError) -> PhotoMetadata {
            try PhotoGeotagReader.read(path: opened == nil ? folder + "/" + name : name, in: opened, statedSize: statedSize).0
        }
        do {
            var meta = try read(name, statedSize: Int(size))
            if let xmp = sidecar?.xmp {
                do { meta = PhotoGeotagReader.merge(file: meta, sidecar: try read(xmp.name, statedSize: Int(xmp.stamp.size))) }
                catch { outcome.warnings.append("\(folder)/\(xmp.name): \(error.reason); the photo's own metadata is used") }
            }
            if let json = sidecar?.takeout {
                let path = opened == nil ? folder + "/" + json.name : json.name
                do {
                    let sidecar = try TakeoutSidecarReader.metadata(path: path, in: opened, statedSize: Int(json.stamp.size))
                    meta = TakeoutSidecarReader.filling(meta, from: sidecar)
                } catch { outcome.warnings.append("\(folder)/\(json.name): \(error.reason); the photo's own metadata is used") }
            }
            outcome.item = PhotoItem.make(meta, fileName: name, size: size)
            outcome.pairing = LivePhoto.Facts(meta)
            outcome.withoutGPS = outcome.item == nil
        } catch {
            outcome.warnings.append("\(folder)/\(name): \(error.reason); skipped")
        }
        return outcome
    }

    /// A movie by its name's extension (a Live Photo's pairing is looked for only beside one).
    static func isMovie(_ name: String) -> Bool {
        extensionCode(name).map(movieExtensionCodes.contains) ?? false
    }

    /// By extension: it runs for every file of every re-scan.
    static func isPhoto(_ name: String) -> Bool {
        extensionCode(name).map(photoExtensionCodes.contains) ?? false
    }

    /// The name's extension of 1 to 5 bytes, lower-cased (ASCII), packed into one number from
    /// its last byte; nil for none or a longer one. No string is made per name.
    private static func extensionCode(_ name: String) -> UInt64? {
        var code: UInt64 = 0, length = 0
        for byte in name.utf8.reversed() {
            if byte == UInt8(ascii: ".") { break }
            guard length < 5 else { return nil }
            code = code << 8 | UInt64((0x41...0x5A).contains(byte) ? byte | 0x20 : byte)
            length += 1
        }
        return length > 0 && length < name.utf8.count ? code : nil
    }

    private static func codes(_ extensions: Set<String>) -> Set<UInt64> {
        Set(extensions.map { $0.utf8.reversed().reduce(0) { $0 << 8 | UInt64($1) } })
    }
    private static let photoExtensionCodes = codes(photoExtensions)
    private static let movieExtensionCodes = codes(movieExtensions)
}
