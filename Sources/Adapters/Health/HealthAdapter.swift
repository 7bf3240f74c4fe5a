import Dispatch
import FoundationEssentials
import IngestCore
import Synchronization

/// `Type=health`: health exports turned into `day`, `workout` and `sleep` items.
///
/// Every sample read is kept in the state store, shared by all health instances and stored once
/// however many exports repeat it (``HealthSampleCodec``). A day, its sleep and its workouts are
/// rolled up again only when new samples land in it, and an item goes out only when its version
/// changed. Per file the anchor keeps size, mtime, inode, content hash and format: an unchanged
/// export is not opened, and a CSV that only grew is read from where it ended.
public struct HealthAdapter: DeviceAdapter {
    public static let type = "health"
    public static let summary = "health exports: Apple Health export.xml/zip, Health Auto Export JSON/CSV, Fitbit/Takeout JSON, Gadgetbridge, CSV"
    public static let configKeys: [ConfigKey] = [
        ConfigKey("Path", .path, repeated: true, "an export file, or a folder walked recursively for exports"),
        ConfigKey("Exclude", .string, repeated: true, "a glob over the whole path to leave out"),
        ConfigKey("Format", .choice(["auto"] + HealthAdapter.readers.map { $0.format }), default: "auto",
                  "the format of every file, instead of finding it from each file's content"),
        ConfigKey("Priority", .string, repeated: true, default: "*Watch*, *iPhone*",
                  "source names (globs) in priority order: where two overlap in time, only the first counts"),
        ConfigKey("TimeZone", .string, "IANA zone for times written without an offset (default: the system's)"),
        ConfigKey("DateColumn", .string, "CSV: the column with the date or date-time"),
        ConfigKey("DateFormat", .string, "CSV: the date column's format (%Y-%m-%d %H:%M…); default ISO 8601"),
    ] + HealthAdapter.columnFields.map { ConfigKey("Column.\($0)", .string, "CSV: the column with \($0.split(separator: "_").joined(separator: " "))") }
    public static let sampleConfig = String(decoding: PackageResources.health_conf, as: UTF8.self)

    /// Every format, in the order detection tries them.
    static let readers: [any HealthReader.Type] = [
        AppleHealthExport.self, HealthAutoExportJSON.self, HealthAutoExportCSV.self, FitbitExportJSON.self,
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
        roots = section.paths("Path")
        guard !roots.isEmpty else { throw ConfigError(file: config.file, key: "Path", "missing; name at least one export file or folder") }
        excludes = section.strings("Exclude")
        let format = section.string("Format") ?? "auto"
        forced = HealthAdapter.readers.first { $0.format == format }
        var settings = HealthSettings()
        if let zone = section.string("TimeZone") {
            guard let tz = ZoneRules(named: zone) else { throw ConfigError(file: config.file, key: "TimeZone", "unknown time zone \(zone) (no such file in /usr/share/zoneinfo); use an IANA name such as Europe/Berlin") }
            settings.timeZone = tz
        }
        for field in HealthAdapter.columnFields { if let column = section.string("Column.\(field)") { settings.columns[field] = column } }
        settings.dateColumn = section.string("DateColumn")
        settings.dateFormat = section.string("DateFormat")
        self.settings = settings
        let priority = section.strings("Priority")
        items = HealthItems(rollup: DayRollup(priority: priority.isEmpty ? ["*Watch*", "*iPhone*"] : priority))
    }

    public var watchedPaths: [String] { roots }

    public func scan(since anchor: Anchor, into sink: some ItemSink) async throws {
        let listing = await FileListing.list(roots: roots, excludes: excludes, accepts: { !$0.hasPrefix(".") }, sink: sink)
        var gone = AnchorChanges()
        var seen = Set<String>()
        for file in listing.files {
            seen.insert(file.name)
            let old = anchor[HealthAdapter.prefix + file.name].flatMap(HealthFileRecord.init)
            if let old, old.size == file.size, old.mtime == file.mtime, old.inode == file.inode { continue }   // not opened
            try await read(file, old: old, into: sink)
        }
        for key in anchor.entries.keys where key.hasPrefix(HealthAdapter.prefix) {
            let path = String(key.dropFirst(HealthAdapter.prefix.count))
            // A deleted export's samples stay: exports are snapshots, and the next one repeats them.
            if !seen.contains(path), listing.isKnownGone(path) { gone.removals.insert(key) }
        }
        if !gone.isEmpty { try await sink.commit([], anchor: gone) }
        try await rollUp(into: sink)
    }

    static let prefix = "f:"

    // MARK: - Reading one file

    private func read(_ file: FolderWalker.Entry, old: HealthFileRecord?, into sink: some ItemSink) async throws {
        let path = file.name
        let head: [UInt8]
        do { head = try FileSystem.readBytes(path, limit: 4096) } catch {
            await sink.warn("\(path): \(error.message)"); return
        }
        var record = HealthFileRecord(size: file.size, mtime: file.mtime, inode: file.inode, hash: "", format: "-")
        guard let reader = forced ?? detect(path, head) else {
            if roots.contains(path) { await sink.warn("\(path): not a health export this adapter knows; set Format= to read it as one") }
            try await sink.commit([], anchor: AnchorChanges(updates: [HealthAdapter.prefix + path: record.encoded]))
            return
        }
        record.format = reader.format
        var digest = ContentHasher()
        var input = HealthInput(path: path)
        if let old, reader.appendable, old.format == reader.format, old.inode == file.inode, file.size > old.size {
            let grown = ContentHasher()
            if (try? HealthAdapter.prefixHash(path, old.size, also: grown)) == old.hash {
                input.offset = old.size          // it only grew: read the new rows, the hash goes on from the old ones
                digest = grown
            }
        }
        input.digest = digest
        let began = ContinuousClock.now
        let outcome = try await parse(input, with: reader, into: sink)
        record.hash = digest.finish()
        let seconds = HealthAdapter.seconds(since: began)
        let rate = Int(Double(file.size - input.offset) / 1e6 / max(seconds, 1e-6))
        Log.info("\(path): \(outcome.records) records read as \(reader.format) in \(HealthAdapter.text(seconds)) s (\(rate) MB/s)")
        if outcome.bad > 0 { await sink.warn("\(path): \(outcome.bad) bad records skipped; the first at \(outcome.firstBad ?? "?")") }
        for note in outcome.notes { await sink.warn("\(path): \(note)") }
        if let failure = outcome.failure {
            await sink.warn("\(path): \(failure)" + (outcome.records > 0 ? "; kept what was read before it" : ""))
            if failure.transient { return }                 // not remembered as read: tried again next scan
        }
        try await sink.commit([], anchor: AnchorChanges(updates: [HealthAdapter.prefix + path: record.encoded]))
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
        var failure: HealthReadError?
    }

    /// Runs the reader on its own thread and queues its chunks as they come: SQLite stores one
    /// chunk while the next is parsed, and at most two wait in memory.
    private func parse(_ input: HealthInput, with reader: any HealthReader.Type, into sink: some ItemSink) async throws -> Outcome {
        let (chunks, continuation) = AsyncStream<[StoredSample]>.makeStream()
        let permits = DispatchSemaphore(value: 2)
        let cancelled = Atomic<Bool>(false)
        let result = Locked(Outcome())
        let settings = self.settings
        DispatchQueue.global().async {
            let collector = HealthCollector { (samples, workouts) throws(HealthReadError) in
                permits.wait()
                if cancelled.load(ordering: .relaxed) { throw HealthReadError("stopped") }
                // Encoded here: SQLite, on the other side, is the slower half.
                continuation.yield(samples.map(HealthSampleCodec.stored) + workouts.map(HealthSampleCodec.stored))
            }
            var failure: HealthReadError?
            do throws(HealthReadError) { try reader.read(input, settings, into: collector) } catch { failure = error }
            do throws(HealthReadError) { try collector.flushNow() } catch { failure = failure ?? error }
            result.withLock { $0 = Outcome(records: collector.handedOn, bad: collector.badCount, firstBad: collector.firstBad, notes: collector.notes, failure: failure) }
            continuation.finish()
        }
        var committer = ChunkCommitter(sink)
        do {
            for await chunk in chunks {
                var changes = AnchorChanges()
                changes.samples = chunk
                try await committer.commit([], anchor: changes)
                permits.signal()
            }
            try await committer.finish()
        } catch {
            cancelled.store(true, ordering: .relaxed)
            permits.signal(); permits.signal()
            for await _ in chunks { permits.signal() }      // let the reader stop
            throw error
        }
        return result.withLock { $0 }
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
    private func rollUp(into sink: some ItemSink) async throws {
        let began = ContinuousClock.now
        var committer = ChunkCommitter(sink)
        let dirty = try await sink.dirtySampleBuckets()
        let batch = 128
        func read(_ start: Int) -> Task<[(String, SampleBucket)], any Error> {
            Task {
                var read: [(String, SampleBucket)] = []
                for bucket in dirty[start..<min(start + batch, dirty.count)] { read.append((bucket, try await sink.sampleBucket(bucket))) }
                return read
            }
        }
        var next = dirty.isEmpty ? nil : read(0)
        for start in stride(from: 0, to: dirty.count, by: batch) {
            // The next batch is read from the store while this one is rolled up.
            let stored = try await next!.value, items = self.items
            next = start + batch < dirty.count ? read(start + batch) : nil
            let rolled = await withTaskGroup(of: [(Int, [Item], SettledBucket)].self) { group in
                let lanes = max(1, min(ProcessInfo.processInfo.activeProcessorCount, 8))
                for lane in 0..<lanes {
                    group.addTask {
                        var out: [(Int, [Item], SettledBucket)] = []
                        for i in stride(from: lane, to: stored.count, by: lanes) {
                            let (queued, settled) = HealthAdapter.rollUp(date: stored[i].0, stored[i].1, items)
                            out.append((i, queued, settled))
                        }
                        return out
                    }
                }
                var all = [([Item], SettledBucket)?](repeating: nil, count: stored.count)
                for await part in group { for (i, queued, settled) in part { all[i] = (queued, settled) } }
                return all
            }
            var changes = AnchorChanges()
            var queued: [Item] = []
            for (i, result) in rolled.enumerated() {
                guard let (bucketItems, settled) = result else { continue }
                queued += bucketItems
                changes.settled[stored[i].0] = settled
            }
            try await committer.commit(queued, anchor: changes)
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
    static func rollUp(date: String, _ stored: SampleBucket, _ items: HealthItems) -> ([Item], SettledBucket) {
        var decoder = HealthSampleCodec.Decoder()
        let produced = items.items(date: date, stored.samples.compactMap { decoder.decode($0) })
        let sent = SentItems(stored.sent)
        var now = SentItems()
        var queued: [Item] = []
        for item in produced {
            now.versions[item.key] = item.version ?? ""
            if sent.versions[item.key] != item.version { queued.append(item) }
        }
        for key in sent.versions.keys.sorted() where now.versions[key] == nil { queued.append(.tombstone(endpoint: .health, key: key)) }
        return (queued, SettledBucket(sent: now.encoded, dirt: stored.dirt))
    }
}

/// The keys and versions a day's items went out with: `key\tversion` lines.
struct SentItems {
    var versions: [String: String] = [:]

    init() {}

    init(_ bytes: [UInt8]?) {
        for line in (bytes ?? []).split(separator: 0x0A) {
            let parts = line.split(separator: 0x09, maxSplits: 1, omittingEmptySubsequences: false)
            if parts.count == 2 { versions[String(decoding: parts[0], as: UTF8.self)] = String(decoding: parts[1], as: UTF8.self) }
        }
    }

    var encoded: [UInt8] {
        Array(versions.keys.sorted().map { "\($0)\t\(versions[$0]!)\n" }.joined().utf8)
    }
}

/// What the anchor keeps per export file: `v1\tsize\tmtime\tinode\thash\tformat`.
struct HealthFileRecord: Equatable {
    var size: Int64
    var mtime: Int64
    var inode: UInt64
    var hash: String
    /// The reader's format, or `-` for a file that is not an export.
    var format: String

    init(size: Int64, mtime: Int64, inode: UInt64, hash: String, format: String) {
        self.size = size; self.mtime = mtime; self.inode = inode; self.hash = hash; self.format = format
    }

    init?(_ data: Data) {
        let f = String(decoding: data, as: UTF8.self).split(separator: "\t", omittingEmptySubsequences: false)
        guard f.count == 6, f[0] == "v1", let size = Int64(f[1]), let mtime = Int64(f[2]), let inode = UInt64(f[3]) else { return nil }
        self.init(size: size, mtime: mtime, inode: inode, hash: String(f[4]), format: String(f[5]))
    }

    var encoded: Data { Data("v1\t\(size)\t\(mtime)\t\(inode)\t\(hash)\t\(format)".utf8) }
}
