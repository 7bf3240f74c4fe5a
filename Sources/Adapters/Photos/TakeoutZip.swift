import FoundationEssentials
import IngestCore

/// A Google Photos Takeout zip (`takeout-20240601T101010Z-001.zip`) read in place, with the
/// location-history adapter's ``ZipEntryStream``: never unpacked to disk. Each photo entry's
/// first 256 KiB are inflated and parsed like a file's head; each `.json` entry is read as a
/// sidecar; then, per folder inside the archive, photos and sidecars are paired by
/// ``TakeoutSidecarMatcher`` exactly as in an unpacked Takeout.
///
/// The anchor has one entry per zip, keyed by its path: the zip's stamp, then per photo entry
/// the key it gave. An unchanged zip is not opened again.
enum TakeoutZip {
    /// Enough for the metadata of a photo straight from a phone (Exif with a maker note, a HEIF `meta`).
    static let headSize = 256 << 10

    static func isZip(_ name: String) -> Bool { name.hasExtension("zip") }

    /// One folder inside the archive, as read.
    private struct Folder {
        var photos: [(name: String, metadata: PhotoMetadata, size: Int)] = []
        var sidecars: [String: PhotoMetadata] = [:]
    }

    /// Reads the zip at `path` unless its anchor entry says it is unchanged; queues its items.
    /// - Returns: how many photos had no GPS (or no time).
    static func scan(_ path: String, stamp: FileStamp, into ledger: inout FileLedger<some ItemSink>, sink: some ItemSink) async throws -> Int {
        var stampBytes: [UInt8] = []
        stamp.write(into: &stampBytes)
        let digest = Digest.sha256Hex(stampBytes, length: 32, prefix: "zip-")
        if let old = ledger.stored[path], FolderAnchor.matches(old, digest: digest) { return 0 }
        let before = ledger.stored[path].flatMap(FolderAnchor.init) ?? FolderAnchor(digest: "")
        var after = FolderAnchor(digest: digest)
        var withoutGPS = 0
        var warnings: [String] = []
        for (folder, contents) in read(path, warnings: &warnings) {
            let matcher = TakeoutSidecarMatcher(sidecarNames: contents.sidecars.keys.sorted())
            for photo in contents.photos {
                var metadata = photo.metadata
                if let json = matcher.sidecar(for: photo.name), let sidecar = contents.sidecars[json] {
                    metadata = TakeoutSidecarReader.filling(metadata, from: sidecar)
                }
                let item = PhotoItem.make(metadata, fileName: photo.name, size: Int64(photo.size))
                if let item { ledger.queue(item) } else { withoutGPS += 1 }
                after.records[folder + photo.name] = FolderAnchor.Record(stamp: stamp, sidecar: "", key: item?.key)
                // Items may go ahead of the zip's entry: should the run stop, the zip is read again.
                try await ledger.commitIfFull()
            }
        }
        for warning in warnings { await sink.warn(warning) }
        ledger.lose(before.records.compactMap { name, old in after.records[name] == nil ? old.key.map { ItemKey(endpoint: .photos, key: $0) } : nil })
        ledger.write(path, after.encoded, keys: after.itemKeys)
        try await ledger.commitIfFull()
        return withoutGPS
    }

    /// The photos and sidecars of the archive by folder (`Takeout/Google Photos/Trip/`); what
    /// could not be read is one warning each, and a damaged archive ends the reading there.
    private static func read(_ path: String, warnings: inout [String]) -> [String: Folder] {
        func wanted(_ name: String) -> Bool {
            let base = name.split(separator: "/").last.map(String.init) ?? name
            return PhotosAdapter.isPhoto(base) || TakeoutSidecarMatcher.isSidecar(base)
        }
        var folders: [String: Folder] = [:]
        let zip: ZipEntryStream
        do { zip = try ZipEntryStream(try FileByteStream(path: path), wanted: wanted) } catch {
            Log.info("\(path): no photo read from it: \(error)")      // a zip of something else
            return folders
        }
        let block = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 << 10, alignment: 16)
        defer { block.deallocate() }
        do throws(FileReadError) {
            repeat {
                let entry = zip.entryName
                let slash = entry.lastIndex(of: "/").map { entry.index(after: $0) } ?? entry.startIndex
                let folder = String(entry[..<slash]), name = String(entry[slash...])
                let isPhoto = PhotosAdapter.isPhoto(name)
                let head = try firstBytes(of: zip, count: isPhoto ? headSize : TakeoutSidecarReader.maxSize + 1, block: block)
                var size = head.count
                while case let n = try zip.read(into: block), n > 0 { size += n }
                do throws(PhotoReadError) {
                    if isPhoto {
                        folders[folder, default: Folder()].photos.append((name, try PhotoGeotagReader.read(head: head, size: size), size))
                    } else {
                        folders[folder, default: Folder()].sidecars[name] = try TakeoutSidecarReader.metadata(from: head)
                    }
                } catch {
                    warnings.append("\(path): \(entry): \(error.reason); skipped")
                }
            } while try zip.next(wanted: wanted)
        } catch {
            warnings.append("\(path): \(error); the entries before it are read")
        }
        return folders
    }

    /// Up to `count` bytes from the start of the current entry, read through `block`.
    private static func firstBytes(of zip: ZipEntryStream, count: Int, block: UnsafeMutableRawBufferPointer) throws(FileReadError) -> [UInt8] {
        var bytes: [UInt8] = []
        while bytes.count < count {
            let n = try zip.read(into: UnsafeMutableRawBufferPointer(rebasing: block[..<min(block.count, count - bytes.count)]))
            if n == 0 { break }
            bytes.append(contentsOf: block[..<n])
        }
        return bytes
    }
}
