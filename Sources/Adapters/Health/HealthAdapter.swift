import FoundationEssentials
import IngestCore
import Synchronization

/// `Type=health`: health exports turned into `day`, `workout` and `sleep` items.
///
/// Every sample read is kept in the state store, shared by all health instances and stored once
/// however many exports repeat it, a day's of one kind and source packed in one record
/// (``HealthSampleCodec``, ``HealthSamplePack``). A day, its sleep and its workouts are
/// rolled up again only when new samples land in it, and an item goes out only when its version
/// changed. Per file the anchor keeps size, mtime, inode, content hash and format: an unchanged
/// export is not opened, and a CSV that only grew is read from where it ended.
public struct HealthAdapter: DeviceAdapter, RecordKeeping {
    public static let type = "health"
    public static let recordScope = RecordScope.type
    public static let summary = "health exports: Apple Health export.xml/zip, Android Health Connect zip, Health Auto Export JSON/CSV, Fitbit/Takeout JSON, Gadgetbridge, CSV"
    enum Key {
        static let path = ConfigKey("Path", repeated: .path, "an export file, or a folder walked recursively for exports")
        static let exclude = ConfigKey("Exclude", repeated: .string, "a glob over the whole path to leave out")
        static let format = ConfigKey("Format", .choice(["auto"] + HealthAdapter.readers.map { $0.format }), default: "auto",
                                      "the format of every file, instead of finding it from each file's content")
        static let priority = ConfigKey("Priority", repeated: .string, default: ["*Watch*", "*iPhone*"],
                                        "source names (globs) in priority order: where two overlap in time, only the first counts")
        static let timeZone = ConfigKey("TimeZone", .string, "IANA zone for times written without an offset (default: the system's)")
        static let dateColumn = ConfigKey("DateColumn", .string, "CSV: the column with the date or date-time")
        static let dateFormat = ConfigKey("DateFormat", .string, "CSV: the date column's format (%Y-%m-%d %H:%M…); default ISO 8601")
        /// `Column.steps=` and the like, in `columnFields` order.
        static let columns = HealthAdapter.columnFields.map {
            (field: $0, key: ConfigKey("Column.\($0)", .string, "CSV: the column with \($0.split(separator: "_").joined(separator: " "))"))
        }
    }
    public static let configKeys: [any ConfigKeyProtocol] = [
        Key.path, Key.exclude, Key.format, Key.priority, Key.timeZone, Key.dateColumn, Key.dateFormat,
    ] + Key.columns.map(\.key)
    public static let sampleConfig = String(decoding: PackageResources.health_conf, as: UTF8.self)

    /// Every format, in the order detection tries them (Health Connect's zip before Apple's, which takes any `.zip`).
    static let readers: [any HealthReader.Type] = [
        HealthConnectExport.self, AppleHealthExport.self, HealthAutoExportJSON.self, HealthAutoExportCSV.self, FitbitExportJSON.self,
        GoogleFitTakeoutJSON.self, GadgetbridgeDatabase.self, ColumnCSV.self,
    ]
    static let columnFields = ["steps", "active_energy", "resting_heart_rate", "heart_rate", "heart_rate_min", "heart_rate_max",
                               "hrv", "sleep", "sleep_minutes"]

    let roots: [String]
    let excludes: [String]
    let forced: (any HealthReader.Type)?
    let settings: HealthSettings
    let items: HealthItems

    public init(config: AdapterConfig) throws(ConfigError) {
        let section = config.section
        roots = try section.value(Key.path, where: { !$0.isEmpty }, else: { _ in "missing; name at least one export file or folder" })
        excludes = section[Key.exclude]
        let format = section[Key.format]
        forced = HealthAdapter.readers.first { $0.format == format }
        var settings = HealthSettings()
        if let zone = section[Key.timeZone] {
            guard let tz = ZoneRules(named: zone) else { throw ConfigError(file: config.file, key: "TimeZone", "unknown time zone \(zone) (no such file in /usr/share/zoneinfo); use an IANA name such as Europe/Berlin") }
            settings.timeZone = tz
        }
        for (field, key) in Key.columns { if let column = section[key] { settings.columns[field] = column } }
        settings.dateColumn = section[Key.dateColumn]
        settings.dateFormat = section[Key.dateFormat]
        self.settings = settings
        items = HealthItems(rollup: DayRollup(priority: section[Key.priority]))
    }

    public var watchedPaths: [String] { roots }

    /// `doctor`: every `Path=` exists and may be read.
    public func doctorChecks() async -> [DoctorCheck] { DoctorCheck.paths(watchedPaths) }

    public func scan(since anchor: Anchor, keeping sink: some RecordSink) async throws {
        try await HealthAdapter.packSingleSamples(sink)
        let listing = await FileListing.list(roots: roots, excludes: excludes, accepts: { !$0.hasPrefix(".") }, sink: sink)
        // Each file's record is a commit of its own, after its samples': it says they were read.
        var ledger = FileLedger(anchor: anchor, prefix: HealthAdapter.prefix, into: sink, itemsPerChunk: 1, entriesPerChunk: 1)
        var seen = Set<String>()
        for file in listing.files {
            seen.insert(file.name)
            let old = ledger.stored[file.name].flatMap(FileRecord.init)
            if let old, old.stamp.matches(file.stamp) { continue }   // not opened
            try await read(file, old: old, into: &ledger, sink: sink)
        }
        // A deleted export's samples stay: exports are snapshots, and the next one repeats them.
        for path in ledger.stored.keys where !seen.contains(path) && listing.isKnownGone(path) { ledger.remove(path, keys: []) }
        try await ledger.finish()
        try await rollUp(into: sink)
    }

    static let prefix = "f:"

    // MARK: - Reading one file

    private func read(_ file: FolderWalker.Entry, old: FileRecord?, into ledger: inout FileLedger<some RecordSink>, sink: some ItemSink) async throws {
        let path = file.name
        let head: [UInt8]
        do { head = try FileSystem.readBytes(path, limit: 4096) } catch {
            await sink.warn("\(path): \(error.message)"); return
        }
        var record = FileRecord(stamp: file.stamp, hash: "")
        guard let reader = forced ?? detect(path, head) else {
            if roots.contains(path) { await sink.warn("\(path): not a health export this adapter knows; set Format= to read it as one") }
            ledger.write(path, record.encoded, keys: [])
            try await ledger.commitIfFull()
            return
        }
        record.exportFormat = reader.format
        var digest = ContentHasher()
        var input = HealthInput(path: path)
        if let old, reader.appendable, old.exportFormat == reader.format, old.stamp.inode == file.stamp.inode, file.stamp.size > old.stamp.size {
            let grown = ContentHasher()
            if (try? HealthAdapter.prefixHash(path, old.stamp.size, also: grown)) == old.hash {
                input.offset = old.stamp.size          // it only grew: read the new rows, the hash goes on from the old ones
                digest = grown
            }
        }
        input.digest = digest
        let began = ContinuousClock.now
        let outcome = try await parse(input, with: reader, into: &ledger)
        record.hash = digest.finish()
        let seconds = HealthAdapter.seconds(since: began)
        let rate = Int(Double(file.stamp.size - input.offset) / 1e6 / max(seconds, 1e-6))
        Log.info("\(path): \(outcome.records) records read as \(reader.format) in \(HealthAdapter.text(seconds)) s (\(rate) MB/s)")
        if outcome.bad > 0 { await sink.warn("\(path): \(outcome.bad) bad records skipped; the first at \(outcome.firstBad ?? "?")") }
        for note in outcome.notes { await sink.warn("\(path): \(note)") }
        if let failure = outcome.failure {
            await sink.warn("\(path): \(failure)" + (outcome.records > 0 ? "; kept what was read before it" : ""))
            if failure.transient { return }                 // not remembered as read: tried again next scan
        }
        ledger.write(path, record.encoded, keys: [])
        try await ledger.commitIfFull()
    }

    private func detect(_ path: String, _ head: [UInt8]) -> (any HealthReader.Type)? {
        let body = head.starts(with: [0xEF, 0xBB, 0xBF]) ? Array(head.dropFirst(3)) : head
        let name = path.lastPathComponent
        if let reader = HealthAdapter.readers.first(where: { $0.detect(name: name, head: body) }) { return reader }
        // A CSV of the user's own is read by its column mapping, when there is one.
        if !settings.columns.isEmpty, name.lowercased().hasSuffix(".csv") { return ColumnCSV.self }
        return nil
    }

    struct Outcome: Sendable {
        /// Samples and workouts read (before deduplication).
        var records = 0
        var bad = 0
        var firstBad: String?
        var notes: [String] = []
        var failure: FileReadError?
    }

    /// Runs the reader on a worker thread and packs and stores its chunks here as they come, on
    /// another core: a chunk is packed while the next is parsed and the one before is stored,
    /// and at most two wait in memory.
    private func parse(_ input: HealthInput, with reader: any HealthReader.Type, into ledger: inout FileLedger<some RecordSink>) async throws -> Outcome {
        let stopped = Atomic<Bool>(false)
        let settings = self.settings
        let chunks = ParsedParts("health.parse") { (deliver: (HealthChunk) -> Void) -> Outcome in
            // The collector ends with this closure: `deliver` does not outlive the parse.
            withoutActuallyEscaping(deliver) { deliver in
                let collector = HealthCollector { (samples, workouts) throws(FileReadError) in
                    deliver(HealthChunk(samples: samples, workouts: workouts))
                    if stopped.load(ordering: .relaxed) { throw FileReadError("stopped") }
                }
                var failure: FileReadError?
                do throws(FileReadError) { try reader.read(input, settings, into: collector) } catch { failure = error }
                do throws(FileReadError) { try collector.flushNow() } catch { failure = failure ?? error }
                return Outcome(records: collector.handedOn, bad: collector.badCount, firstBad: collector.firstBad, notes: collector.notes, failure: failure)
            }
        }
        defer {
            stopped.store(true, ordering: .relaxed)
            chunks.close()
        }
        let spool = HealthSampleSpool()
        var scattered = 0
        var spoolFailure: FileReadError?
        var outcome = Outcome()
        for await next in chunks.stream {
            guard case .part(let chunk) = next else {
                if case .end(let end) = next { outcome = end }
                continue
            }
            chunks.taken()
            guard spoolFailure == nil else { continue }
            let records = HealthSamplePack.records(chunk.samples) + chunk.workouts.map(HealthSampleCodec.stored)
            do throws(FileReadError) {
                if try spool.take(records) { scattered += chunk.samples.count + chunk.workouts.count; continue }
            } catch {
                spoolFailure = error                    // what was taken is still stored, the file read again next scan
                stopped.store(true, ordering: .relaxed)
                continue
            }
            try await HealthAdapter.store(HealthAdapter.byShelf(records), into: &ledger)
        }
        // What came scattered goes to the store sorted, after what came in order (and before
        // the file's anchor): a cut-off file keeps it too.
        if scattered > 0 { Log.info("\(input.path): \(scattered) samples came scattered over days and kinds; stored sorted") }
        if let failure = try await HealthAdapter.storeSorted(spool, into: &ledger) { spoolFailure = spoolFailure ?? failure }
        outcome.failure = spoolFailure ?? outcome.failure
        return outcome
    }

    /// One chunk of a health reader's output, as its collector flushes it.
    struct HealthChunk: Sendable {
        var samples: [HealthSample]
        var workouts: [HealthWorkout]
    }

    /// Stores what `spool` took, in its order; what went wrong with the spool, if anything.
    private static func storeSorted(_ spool: HealthSampleSpool, into ledger: inout FileLedger<some RecordSink>) async throws -> FileReadError? {
        var sorted: HealthSampleSpool.SortedRecords?
        do throws(FileReadError) { sorted = try spool.sorted() } catch { return error }
        while sorted != nil {
            // About 1 MiB of packs a commit: by count alone, a shuffled export's whole spool (tens of MB) was one chunk.
            let records: [StateRecord]
            do throws(FileReadError) { records = try sorted?.next(HealthCollector.defaultChunkSize, bytes: 1 << 20) ?? [] } catch { return error }
            if records.isEmpty { break }
            try await store(HealthSamplePack.coalesced(records), into: &ledger)
        }
        return nil
    }

    /// Samples alone can be read again from the export: the anchor that says it was read comes
    /// in a later, durable commit, whose fsync takes them along.
    private static func store(_ records: [StateRecord], into ledger: inout FileLedger<some RecordSink>) async throws {
        try await ledger.commit(anchor: AnchorUpdate(durable: false), records: RecordChanges(records: records, merge: HealthSamplePack.merge))
    }

    /// `records` shelf by shelf, each shelf's in the order read (a key read twice keeps its later
    /// value): kinds read interleaved go into the store's B-tree one kind's run after another.
    static func byShelf(_ records: [StateRecord]) -> [StateRecord] {
        var shelves = [[StateRecord]](repeating: [], count: HealthSampleCodec.shelfCount)
        for r in records { shelves[Int(r.shelf)].append(r) }
        return shelves.flatMap { $0 }
    }

    /// The hash of the first `count` bytes (how the file looked when last read), feeding the same
    /// bytes to `also`, the whole file's digest.
    static func prefixHash(_ path: String, _ count: Int64, also: ContentHasher) throws -> String {
        let prefix = StreamingDigest()
        let stream = try FileByteStream(path: path)
        let block = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
        defer { block.deallocate() }
        var left = count
        while left > 0 {
            let n = try stream.read(into: UnsafeMutableRawBufferPointer(rebasing: block[0..<Int(min(left, Int64(block.count)))]))
            guard n > 0 else { break }
            let part = UnsafeRawBufferPointer(rebasing: block[0..<n])
            prefix.update(part); also.update(part)
            left -= Int64(n)
        }
        return prefix.finishHex(length: 32)
    }

    // MARK: - Rolling up

    /// Rolls every dirty day up into items, queuing those whose version changed and a tombstone
    /// for a sleep or workout key the day no longer has. Days are read in batches and rolled up
    /// on every core while the previous batch is queued.
    private func rollUp(into sink: some RecordSink) async throws {
        let began = ContinuousClock.now
        var committer = ChunkCommitter(sink)
        let dirty = try sink.records.changedGroups()
        // A batch ends at 128 days or 1 MB of packed samples (about 150 000, a few MB once
        // decoded a day at a time on each core).
        func read(_ start: Int) -> Task<[(String, RecordGroup)], any Error> {
            Task {
                var read: [(String, RecordGroup)] = [], bytes = 0
                for bucket in dirty[start...] {
                    let group = try sink.records.group(bucket)
                    read.append((bucket, group)); bytes += group.records.reduce(0) { $0 + $1.value.count }
                    if read.count == 128 || bytes >= 1 << 20 { break }
                }
                return read
            }
        }
        var next = dirty.isEmpty ? nil : read(0)
        var start = 0
        while let reading = next {
            // The next batch is read from the store while this one is rolled up.
            let stored = try await reading.value, items = self.items
            start += stored.count
            next = start < dirty.count ? read(start) : nil
            let rolled = await withTaskGroup(of: [(Int, [Item], SettledGroup)].self) { group in
                let lanes = max(1, min(ProcessInfo.processInfo.activeProcessorCount, 8))
                for lane in 0..<lanes {
                    group.addTask {
                        var out: [(Int, [Item], SettledGroup)] = []
                        for i in stride(from: lane, to: stored.count, by: lanes) {
                            let (queued, settled) = HealthAdapter.rollUp(date: stored[i].0, stored[i].1, items)
                            out.append((i, queued, settled))
                        }
                        return out
                    }
                }
                var all = [([Item], SettledGroup)?](repeating: nil, count: stored.count)
                for await part in group { for (i, queued, settled) in part { all[i] = (queued, settled) } }
                return all
            }
            var settling = RecordChanges()
            var queued: [Item] = []
            for (i, result) in rolled.enumerated() {
                guard let (bucketItems, settled) = result else { continue }
                queued += bucketItems
                settling.settled[stored[i].0] = settled
            }
            try await committer.commit(queued, anchor: .none, records: settling)
        }
        try await committer.finish()
        if !dirty.isEmpty { Log.info("health: \(dirty.count) days rolled up in \(HealthAdapter.text(HealthAdapter.seconds(since: began))) s") }
    }

    private static func seconds(since start: ContinuousClock.Instant) -> Double {
        let (whole, atto) = (ContinuousClock.now - start).components
        return Double(whole) + Double(atto) / 1e18
    }

    /// Seconds to two decimals.
    private static func text(_ seconds: Double) -> String {
        let hundredths = Int((seconds * 100).rounded())
        return "\(hundredths / 100)." + CivilCalendar.pad(hundredths % 100, 2)
    }

    /// One day's items that differ from what went out for it, tombstones for keys it lost, and
    /// what to remember as sent.
    static func rollUp(date: String, _ stored: RecordGroup, _ items: HealthItems) -> ([Item], SettledGroup) {
        let produced = items.items(date: date, HealthSampleCodec.decode(group: stored.records))
        let sent = SentItems(stored.settled)
        var now = SentItems()
        var queued: [Item] = []
        for item in produced {
            now.versions[item.key] = item.version ?? ""
            if sent.versions[item.key] != item.version { queued.append(item) }
        }
        for key in sent.versions.keys.sorted() where now.versions[key] == nil { queued.append(.tombstone(endpoint: .health, key: key)) }
        return (queued, SettledGroup(state: now.encoded, changes: stored.changes))
    }
}
