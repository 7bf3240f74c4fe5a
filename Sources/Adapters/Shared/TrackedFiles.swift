import FoundationEssentials
import IngestCore
#if canImport(Glibc)
import Glibc
#endif

/// The files of an adapter whose sources are whole text files (.ics, .vcf, exports) that it parses
/// into items: `Path=` entries that are files or folder trees.
///
/// Per file the anchor keeps a ``FileRecord``: stamp, content hash, and the endpoint, key and
/// version of every item the file gave. So an unchanged run reads no file contents; a changed
/// file is re-parsed and only its new or changed items are queued; an item gone from its file,
/// or a file gone from its folder, is sent once as a tombstone unless another file still has the
/// key (``FileLedger``). A file that fails to parse keeps its old record: it is not taken as "everything deleted".
struct TrackedFiles: Sendable {
    /// What parsing one file gave.
    enum Parse: Sendable {
        /// The items, with one line per component skipped, and when the same bytes must be parsed
        /// again even if unchanged (a calendar whose window moves with the clock). `retained` are
        /// keys the file still holds but no longer sends (a series' oldest occurrences, past its
        /// cap): they keep their place in the record and get no tombstone.
        case parsed(FileItems, warnings: [String], refreshAfter: Date?, retained: [ItemKey] = [])
        /// The file as a whole could not be read as this format.
        case failed(String)
        /// A large file whose items are handed over while it is still being parsed, so they are made
        /// and recorded on one core while the parse goes on on the other. `produce` runs on a thread of
        /// its own, gives each part's items (in order) to `deliver`, which blocks while two parts wait,
        /// and returns how the parse ended: `.parsed` with its last items, or `.failed` (the file then
        /// keeps its old record; a new file is recorded with what it gave, as one that fails whole). `parts` is how many parts it
        /// expects to give: a new file's table is made room for from the first part's count.
        case streamed(parts: Int, @Sendable (_ deliver: (FileItems) -> Void) -> Parse)
    }

    let roots: [String]
    let excludes: [String]
    /// Which file names in a folder are this adapter's (`.ics`, `.vcf`); files named directly in `Path=` always are.
    let accepts: @Sendable (String) -> Bool
    /// Bigger files are skipped with a warning, not read into memory.
    var maxFileBytes: Int64 = 64 << 20
    /// Items queued per transaction.
    var chunkSize = 500
    /// Files read (on every core) between two progress reports.
    var readBatch = 64
    /// A file whose bytes are those of a file the last scan parsed takes over that file's items
    /// without being parsed: a moved, renamed or copied file sends nothing new. For adapters
    /// whose parse is costly and depends on nothing but the bytes (OCR).
    var adoptsCopies = false

    static let prefix = "f:"

    /// A file's items, made a chunk at a time as they are queued: a calendar of 50 000
    /// occurrences never holds 50 000 items at once.
    struct FileItems: Sendable {
        let count: Int
        /// The items at these positions, in order.
        let make: @Sendable (Range<Int>) -> [Item]

        init(count: Int, make: @escaping @Sendable (Range<Int>) -> [Item]) { self.count = count; self.make = make }
        init(_ items: [Item]) { self.init(count: items.count) { Array(items[$0]) } }

        var all: [Item] { make(0..<count) }
    }

    /// Scans every file, calling `parse(path, bytes)` for those that changed, on every core.
    func scan(since anchor: Anchor, into sink: some ItemSink, now: Date = Date(),
              parse: @escaping @Sendable (String, [UInt8]) -> Parse) async throws {
        var ledger = FileLedger(anchor: anchor, prefix: TrackedFiles.prefix, into: sink, itemsPerChunk: chunkSize, entriesPerChunk: 256)
        var previous: [String: FileRecord] = [:]
        for (path, data) in ledger.stored {
            if let record = FileRecord(data) { previous[path] = record } else { ledger.remove(path, keys: []) }   // an older layout
        }

        // By content hash; a record without items (a file that failed) is no source to copy. Files
        // read in this scan join it, so a copy met in a later batch is not parsed again either.
        var copies = adoptsCopies ? Dictionary(previous.values.filter { !$0.items.isEmpty }.map { ($0.hash, $0) }) { first, _ in first } : [:]
        let listing = await FileListing.list(roots: roots, excludes: excludes, accepts: accepts, sink: sink)
        var seen = Set<String>()
        var toRead: [Pending] = []
        for file in listing.files {
            seen.insert(file.name)
            let old = previous[file.name]
            let fresh = old.map { $0.refreshAfter.map { now < $0 } ?? true } ?? false
            if let old, fresh, old.stamp.matches(file.stamp) { continue }   // unchanged: not opened
            toRead.append(Pending(file: file, unchangedIfHash: fresh ? old?.hash : nil))
        }
        await sink.progress(examined: seen.count, total: seen.count)

        let batch = readBatch
        for start in stride(from: 0, to: toRead.count, by: batch) {
            let slice = Array(toRead[start..<min(start + batch, toRead.count)])
            var results = await read(slice, copies: copies, parse: parse)
            for (i, pending) in slice.enumerated() {
                // Taken out of the batch, so a file's parse (a calendar's components) is freed
                // before its record is encoded.
                let result = results[i]
                results[i] = .unreadable("")
                guard let record = try await record(of: pending.file, consume result, old: previous[pending.file.name], into: &ledger, sink: sink) else { continue }
                if adoptsCopies, !record.items.isEmpty, copies[record.hash] == nil { copies[record.hash] = record }
                ledger.write(pending.file.name, record: record.encoded)
                try await ledger.commitIfFull()
            }
            await sink.progress(examined: min(start + batch, toRead.count), total: toRead.count)
        }

        // Files no longer there, in folders that were listed, or no longer under any `Path=`:
        // everything they gave is gone.
        for (path, record) in previous where !seen.contains(path) && (listing.isKnownGone(path) || !isUnderRoots(path)) {
            ledger.remove(path, keys: record.items.keys)
        }
        try await ledger.finish { path, _ in previous[path]?.items.keys ?? [] }
    }

    /// The record to keep for a file that was read, queuing its new or changed items and losing
    /// the keys it no longer gives; nil when its old record (if any) stays as it was. A file of
    /// many items has them queued (and committed) a chunk at a time; its record comes after them,
    /// so an interruption reads the file again and the node sees the first chunks as duplicates.
    private func record<Sink: ItemSink>(of file: FolderWalker.Entry, _ result: ReadResult, old: FileRecord?,
                                        into ledger: inout FileLedger<Sink>, sink: Sink) async throws -> FileRecord? {
        switch result {
        case .unreadable(let reason):
            await sink.warn("\(file.name): \(reason)")
            return nil
        case .unchanged(let hash):
            guard var kept = old else { return nil }
            kept.stamp = file.stamp; kept.hash = hash
            return kept
        case .copied(var record):
            record.stamp = file.stamp
            ledger.lose(old?.items.keys(notIn: record.items) ?? [])
            return record
        case .parsed(let hash, let parse):
            let update = FileUpdate(file: file, old: old, hash: hash, chunkSize: chunkSize, sink: sink)
            return try await update.record(parse, ledger: &ledger)
        }
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
        /// The bytes of the file `FileRecord` was made of (``adoptsCopies``).
        case copied(FileRecord)
        case parsed(hash: String, Parse)
    }

    /// Reads and parses a batch of files on every core; results come back in the order given.
    private func read(_ files: [Pending], copies: [String: FileRecord], parse: @escaping @Sendable (String, [UInt8]) -> Parse) async -> [ReadResult] {
        await withTaskGroup(of: (Int, ReadResult).self) { group in
            for (i, pending) in files.enumerated() {
                group.addTask { (i, readOne(pending, copies: copies, parse: parse)) }
            }
            var results = [ReadResult](repeating: .unreadable(""), count: files.count)
            for await (i, result) in group { results[i] = result }
            return results
        }
    }

    private func readOne(_ pending: Pending, copies: [String: FileRecord], parse: (String, [UInt8]) -> Parse) -> ReadResult {
        let file = pending.file
        guard file.stamp.size <= maxFileBytes else {
            return .unreadable("\(file.stamp.size / (1 << 20)) MiB is over the \(maxFileBytes / (1 << 20)) MiB limit; skipped")
        }
        let bytes: [UInt8]
        do { bytes = try FileSystem.readBytes(file.name, limit: Int(maxFileBytes) + 1) } catch { return .unreadable(error.message) }
        guard bytes.count <= maxFileBytes else { return .unreadable("grew over the \(maxFileBytes / (1 << 20)) MiB limit while read; skipped") }
        let hash = Digest.sha256Hex(bytes, length: 32)
        if hash == pending.unchangedIfHash { return .unchanged(hash: hash) }    // touched, not edited
        if let source = copies[hash] { return .copied(source) }
        return .parsed(hash: hash, parse(file.name, bytes))
    }
}
