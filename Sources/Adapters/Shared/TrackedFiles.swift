import FoundationEssentials
import IngestCore
#if canImport(Glibc)
import Glibc
#endif

/// The files of an adapter whose sources are whole text files (.ics, .vcf, exports) that it parses
/// into items: `Path=` entries that are files or folder trees.
///
/// Per file the anchor keeps size, mtime, inode and content hash, plus the endpoint, key and
/// version of every item the file gave. So an unchanged run reads no file contents; a changed
/// file is re-parsed and only its new or changed items are queued; an item gone from its file,
/// or a file gone from its folder, is sent once as a tombstone unless another file still has the
/// key. A file that fails to parse keeps its old record: it is not taken as "everything deleted".
struct TrackedFiles: Sendable {
    /// What parsing one file gave.
    enum Parse: Sendable {
        /// The items, with one line per component skipped, and when the same bytes must be parsed
        /// again even if unchanged (a calendar whose window moves with the clock). `retained` are
        /// keys the file still holds but no longer sends (a series' oldest occurrences, past its
        /// cap): they keep their place in the record and get no tombstone.
        case parsed([Item], warnings: [String], refreshAfter: Date?, retained: [FileRecord.ItemKey] = [])
        /// The file as a whole could not be read as this format.
        case failed(String)
    }

    let roots: [String]
    let excludes: [String]
    /// Which file names in a folder are this adapter's (`.ics`, `.vcf`); files named directly in `Path=` always are.
    let accepts: @Sendable (String) -> Bool
    /// Bigger files are skipped with a warning, not read into memory.
    var maxFileBytes: Int64 = 64 << 20
    /// Items queued per transaction.
    var chunkSize = 500

    static let prefix = "f:"

    /// Scans every file, calling `parse(path, bytes)` for those that changed, on every core.
    func scan(since anchor: Anchor, into sink: some ItemSink, now: Date = Date(),
              parse: @escaping @Sendable (String, [UInt8]) -> Parse) async throws {
        var previous: [String: FileRecord] = [:]
        var changes = AnchorChanges()
        for (key, data) in anchor.entries {
            if key.hasPrefix(TrackedFiles.prefix), let record = FileRecord(data) { previous[String(key.dropFirst(TrackedFiles.prefix.count))] = record }
            else { changes.removals.insert(key) }      // not ours, or an older layout
        }

        let listing = await FileListing.list(roots: roots, excludes: excludes, accepts: accepts, sink: sink)
        var seen = Set<String>()
        var toRead: [Pending] = []
        for file in listing.files {
            seen.insert(file.name)
            let old = previous[file.name]
            let fresh = old.map { $0.refreshAfter.map { now < $0 } ?? true } ?? false
            if let old, fresh, old.size == file.size, old.mtime == file.mtime, old.inode == file.inode { continue }   // unchanged: not opened
            toRead.append(Pending(file: file, unchangedIfHash: fresh ? old?.hash : nil))
        }
        await sink.progress(examined: seen.count, total: seen.count)

        // Keys that files not re-read this run still hold: a tombstone waits for the last copy.
        var current: [String: FileRecord] = [:]
        var items: [Item] = []
        var goneKeys: [FileRecord.ItemKey] = []
        var committer = ChunkCommitter(sink)
        func flush() async throws {
            guard !items.isEmpty || !changes.isEmpty else { return }
            try await committer.commit(items, anchor: changes)
            items.removeAll(keepingCapacity: true); changes = AnchorChanges()
        }

        let batch = 64
        for start in stride(from: 0, to: toRead.count, by: batch) {
            let slice = Array(toRead[start..<min(start + batch, toRead.count)])
            for (pending, result) in zip(slice, await read(slice, parse: parse)) {
                let file = pending.file
                let old = previous[file.name]
                var record = FileRecord(size: file.size, mtime: file.mtime, inode: file.inode, hash: "", refreshAfter: nil, items: [:])
                switch result {
                case .unreadable(let reason):
                    await sink.warn("\(file.name): \(reason)")
                    continue                                     // the old record (if any) stays as it was
                case .unchanged(let hash):
                    guard var kept = old else { continue }
                    kept.size = file.size; kept.mtime = file.mtime; kept.inode = file.inode; kept.hash = hash
                    record = kept
                case .parsed(let hash, .failed(let reason)):
                    await sink.warn("\(file.name): \(reason)")
                    guard old == nil else { continue }
                    record.hash = hash                           // a new bad file: remember it so it is not re-read until it changes
                case .parsed(let hash, .parsed(let parsed, let warnings, let refreshAfter, let retained)):
                    for warning in warnings { await sink.warn("\(file.name): \(warning)") }
                    record.hash = hash
                    record.refreshAfter = refreshAfter
                    for item in parsed {
                        let id = FileRecord.ItemKey(endpoint: item.endpoint, key: item.key)
                        if record.items[id] == nil, old?.items[id] != item.version { items.append(item) }
                        record.items[id] = item.version ?? ""
                    }
                    for id in retained where record.items[id] == nil { record.items[id] = old?.items[id] }
                    for id in (old?.items.keys).map(Array.init) ?? [] where record.items[id] == nil { goneKeys.append(id) }
                }
                current[file.name] = record
                changes.updates[TrackedFiles.prefix + file.name] = record.encoded
                if items.count >= chunkSize || changes.updates.count >= 256 { try await flush() }
            }
            await sink.progress(examined: min(start + batch, toRead.count), total: toRead.count)
        }

        // Files no longer there, in folders that were listed, or no longer under any `Path=`:
        // everything they gave is gone.
        for (path, record) in previous where !seen.contains(path) && (listing.isKnownGone(path) || !isUnderRoots(path)) {
            changes.removals.insert(TrackedFiles.prefix + path)
            goneKeys += record.items.keys
        }
        if !goneKeys.isEmpty {
            var live = Set<FileRecord.ItemKey>()
            for (path, record) in previous where current[path] == nil && !changes.removals.contains(TrackedFiles.prefix + path) {
                live.formUnion(record.items.keys)
            }
            for record in current.values { live.formUnion(record.items.keys) }
            for id in Set(goneKeys) where !live.contains(id) { items.append(Item.tombstone(endpoint: id.endpoint, key: id.key)) }
        }
        try await flush()
        try await committer.finish()
    }

    private func isUnderRoots(_ path: String) -> Bool {
        roots.contains { root in path == root || path.hasPrefix(root.hasSuffix("/") ? root : root + "/") }
    }

    // MARK: - Reading

    /// A file to read; with `unchangedIfHash`, the same content as last time is not parsed again.
    private struct Pending: Sendable {
        var file: FolderWalker.Entry            // `name` holds the full path
        var unchangedIfHash: String?
    }

    private enum ReadResult: Sendable {
        case unreadable(String)
        case unchanged(hash: String)
        case parsed(hash: String, Parse)
    }

    /// Reads and parses a batch of files on every core; results come back in the order given.
    private func read(_ files: [Pending], parse: @escaping @Sendable (String, [UInt8]) -> Parse) async -> [ReadResult] {
        await withTaskGroup(of: (Int, ReadResult).self) { group in
            for (i, pending) in files.enumerated() {
                group.addTask { (i, readOne(pending, parse: parse)) }
            }
            var results = [ReadResult](repeating: .unreadable(""), count: files.count)
            for await (i, result) in group { results[i] = result }
            return results
        }
    }

    private func readOne(_ pending: Pending, parse: (String, [UInt8]) -> Parse) -> ReadResult {
        let file = pending.file
        guard file.size <= maxFileBytes else {
            return .unreadable("\(file.size / (1 << 20)) MiB is over the \(maxFileBytes / (1 << 20)) MiB limit; skipped")
        }
        let bytes: [UInt8]
        do { bytes = try FileSystem.readBytes(file.name, limit: Int(maxFileBytes) + 1) } catch { return .unreadable(error.message) }
        guard bytes.count <= maxFileBytes else { return .unreadable("grew over the \(maxFileBytes / (1 << 20)) MiB limit while read; skipped") }
        let hash = Digest.sha256Hex(bytes, length: 32)
        if hash == pending.unchangedIfHash { return .unchanged(hash: hash) }    // touched, not edited
        return .parsed(hash: hash, parse(file.name, bytes))
    }
}

/// What the anchor remembers of one tracked file. Stored as text:
/// `v1\tsize\tmtime\tinode\thash\trefreshAfter` then `endpoint\tkey\tversion` per item
/// (`-` for none; tabs, newlines and `%` in keys escaped as in ``AnchorText``).
struct FileRecord: Equatable {
    struct ItemKey: Hashable, Sendable {
        var endpoint: Endpoint
        var key: String
    }

    var size: Int64
    var mtime: Int64
    var inode: UInt64
    var hash: String
    var refreshAfter: Date?
    var items: [ItemKey: String]

    init(size: Int64, mtime: Int64, inode: UInt64, hash: String, refreshAfter: Date?, items: [ItemKey: String]) {
        self.size = size; self.mtime = mtime; self.inode = inode; self.hash = hash; self.refreshAfter = refreshAfter; self.items = items
    }

    /// Decoded from the UTF-8 bytes, not Characters: an unchanged run decodes every file's record.
    init?(_ data: Data) {
        let lines = [UInt8](data).split(separator: 0x0A)
        guard let head = lines.first?.split(separator: 0x09, omittingEmptySubsequences: false), head.count == 6,
              head[0].elementsEqual("v1".utf8), let size = Int64(FileRecord.text(head[1])), let mtime = Int64(FileRecord.text(head[2])),
              let inode = UInt64(FileRecord.text(head[3])) else { return nil }
        self.size = size; self.mtime = mtime; self.inode = inode; self.hash = FileRecord.text(head[4])
        refreshAfter = Double(FileRecord.text(head[5])).map { Date(timeIntervalSince1970: $0) }
        items = [:]
        for line in lines.dropFirst() {
            let f = line.split(separator: 0x09, omittingEmptySubsequences: false)
            guard f.count == 3, let endpoint = Endpoint(rawValue: FileRecord.text(f[0])) else { continue }
            items[ItemKey(endpoint: endpoint, key: AnchorText.unescape(FileRecord.text(f[1])))] = f[2].elementsEqual("-".utf8) ? "" : FileRecord.text(f[2])
        }
    }

    private static func text(_ bytes: ArraySlice<UInt8>) -> String { String(decoding: bytes, as: UTF8.self) }

    var encoded: Data {
        var text = "v1\t\(size)\t\(mtime)\t\(inode)\t\(hash)\t\(refreshAfter.map { String($0.timeIntervalSince1970) } ?? "-")\n"
        for id in items.keys.sorted(by: { ($0.endpoint, $0.key) < ($1.endpoint, $1.key) }) {
            let version = items[id]!
            text += "\(id.endpoint.rawValue)\t\(AnchorText.escape(id.key))\t\(version.isEmpty ? "-" : version)\n"
        }
        return Data(text.utf8)
    }
}
