import FoundationEssentials
import IngestCore

extension TrackedFiles {
    /// A changed file whose bytes were parsed, on its way to the record kept for it: what every
    /// step of queuing its items and making that record shares.
    struct FileUpdate<Sink: ItemSink> {
        let file: FolderWalker.Entry
        /// Its record from the last scan, if it had one.
        let old: FileRecord?
        /// The content hash of the bytes parsed.
        let hash: String
        /// Items made and queued at a time.
        let chunkSize: Int
        let sink: Sink

        /// The record to keep after `parse`, its new or changed items queued and the keys it no
        /// longer gives lost; nil when its old record (if any) stays as it was.
        func record(_ parse: Parse, ledger: inout FileLedger<Sink>) async throws -> FileRecord? {
            switch parse {
            case .failed(let reason):
                await sink.warn("\(file.name): \(reason)")
                guard old == nil else { return nil }
                return FileRecord(stamp: file.stamp, hash: hash)   // a new bad file: remember it so it is not re-read until it changes
            case .parsed(let parsed, let warnings, let refreshAfter, let retained):
                var items = ItemTable.Builder(capacity: parsed.count)
                try await queue(parsed, into: &items, ledger: &ledger)
                return await finished(items, warnings: warnings, refreshAfter: refreshAfter, retained: retained, ledger: &ledger)
            case .streamed(let parts, let produce):
                return try await streamed(produce, parts: parts, ledger: &ledger)
            }
        }

        /// The record of a file whose parse hands its items over while it goes on (``Parse/streamed(parts:_:)``).
        private func streamed(_ produce: @escaping @Sendable (_ deliver: (FileItems) -> Void) -> Parse, parts count: Int,
                              ledger: inout FileLedger<Sink>) async throws -> FileRecord? {
            let parts = ParsedParts("parse", produce)
            defer { parts.close() }
            // Room for as many items as last time, else as the first part times the parts expected:
            // grown by doubling, the table would hold its old and new buffers at once.
            var builder: ItemTable.Builder?
            func sized(_ first: FileItems) -> ItemTable.Builder { ItemTable.Builder(capacity: old?.items.count ?? first.count * max(count, 1)) }
            for await part in parts.stream {
                switch part {
                case .part(let parsed):
                    parts.taken()
                    var items = builder.take() ?? sized(parsed)
                    try await queue(parsed, into: &items, ledger: &ledger)
                    builder = consume items
                case .end(.parsed(let parsed, let warnings, let refreshAfter, let retained)):
                    var items = builder.take() ?? sized(parsed)
                    try await queue(parsed, into: &items, ledger: &ledger)
                    return await finished(items, warnings: warnings, refreshAfter: refreshAfter, retained: retained, ledger: &ledger)
                case .end(let end):
                    // The items given are queued. A file read before keeps its old record and is read
                    // again next time; a new one, like a new file that fails whole, is remembered by its
                    // hash (with the keys it gave, for their tombstones) until it changes.
                    if case .failed(let reason) = end { await sink.warn("\(file.name): \(reason)") }
                    guard old == nil else { return nil }
                    return FileRecord(stamp: file.stamp, hash: hash, items: (builder.take() ?? ItemTable.Builder()).table())
                }
            }
            return nil
        }

        /// Queues those of the file's items that are new or changed, a chunk at a time; the next
        /// chunk is made while this one is recorded and queued.
        private func queue(_ parsed: FileItems, into items: inout ItemTable.Builder, ledger: inout FileLedger<Sink>) async throws {
            let chunkSize = chunkSize
            let chunk = { (start: Int) in start < parsed.count ? Task { parsed.make(start..<min(start + chunkSize, parsed.count)) } : nil }
            var making = chunk(0)
            var start = 0
            while let made = making {
                start += chunkSize
                making = chunk(start)
                for item in await made.value {
                    let id = ItemKey(endpoint: item.endpoint, key: item.key)
                    if items.set(id, version: item.version ?? ""), old?.items.version(of: id) != item.version { ledger.queue(item) }
                }
                try await ledger.commitIfFull()
            }
        }

        /// The record of a file whose items were all queued.
        private func finished(_ items: consuming ItemTable.Builder, warnings: [String], refreshAfter: Date?, retained: [ItemKey],
                              ledger: inout FileLedger<Sink>) async -> FileRecord {
            for warning in warnings { await sink.warn("\(file.name): \(warning)") }
            for id in retained { if let version = old?.items.version(of: id) { items.insert(id, version: version) } }
            var record = FileRecord(stamp: file.stamp, hash: hash, items: items.table())
            record.refreshAfter = refreshAfter
            ledger.lose(old?.items.keys(notIn: record.items) ?? [])
            return record
        }
    }
}
