import FoundationEssentials
import IngestCore

/// `Type=listening-history`: plays from Spotify's listening-history exports (the "Extended
/// streaming history" and the account data's streaming history), as files, folders or the
/// export's zip read in place, each file known by its content (``SpotifyHistory``).
///
/// A play counts once it played `MinPlayed=` (30 s, as ListenBrainz's Spotify importer counts):
/// the exports give no track length, so MPRIS's share-of-the-track rule has nothing to go on.
/// The anchor keeps one entry per file (its stamp): an unchanged file is not opened again. Items
/// go out as a file is read, a chunk at a time, so memory does not grow with the export.
public struct ListeningHistoryAdapter: DeviceAdapter {
    public static let type = "listening-history"
    public static let summary = "plays from Spotify's listening-history exports (extended streaming history, account data; files, folders or the zip)"
    enum Key {
        static let path = ConfigKey("Path", repeated: .path, "an export file, the export's zip, or a folder walked recursively for them")
        static let exclude = ConfigKey("Exclude", repeated: .string, "a glob over the whole path to leave out")
        static let minPlayed = ConfigKey("MinPlayed", .duration, default: "30s", "a play counts once it played this long")
    }
    public static let configKeys: [any ConfigKeyProtocol] = [Key.path, Key.exclude, Key.minPlayed]
    public static let sampleConfig = String(decoding: PackageResources.listening_history_conf, as: UTF8.self)

    let roots: [String]
    let excludes: [String]
    /// Milliseconds a play needs.
    let minPlayedMs: Double

    public init(config: AdapterConfig) throws(ConfigError) {
        let section = config.section
        roots = try section.value(Key.path, where: { !$0.isEmpty }, else: { _ in "missing; name at least one export file, zip or folder" })
        excludes = section[Key.exclude]
        minPlayedMs = try section.value(Key.minPlayed, where: { $0 >= 0 }, else: { _ in "must not be negative" }) * 1000
    }

    public var watchedPaths: [String] { roots }

    /// `doctor`: every `Path=` exists and may be read.
    public func doctorChecks() async -> [DoctorCheck] { DoctorCheck.paths(watchedPaths) }

    static let prefix = "f:"
    /// Plays queued per commit.
    static let chunk = 5000

    public func scan(since anchor: Anchor, into sink: some ItemSink) async throws {
        let listing = await FileListing.list(roots: roots, excludes: excludes, accepts: { !$0.hasPrefix(".") }, sink: sink)
        var ledger = FileLedger(anchor: anchor, prefix: Self.prefix, into: sink, itemsPerChunk: Self.chunk, entriesPerChunk: 1)
        var seen = Set<String>()
        var tally = ListenTally()
        for (n, file) in listing.files.enumerated() {
            seen.insert(file.name)
            await sink.progress(examined: n + 1, total: listing.files.count)
            if let old = ledger.stored[file.name].flatMap(FileRecord.init), old.stamp.matches(file.stamp) { continue }   // not opened
            try await read(file.name, named: roots.contains(file.name), into: &ledger, tally: &tally, sink: sink)
            ledger.write(file.name, FileRecord(stamp: file.stamp, hash: "").encoded, keys: [])
            try await ledger.commitIfFull()
        }
        // A deleted or moved export's plays were still played: its entry goes, no tombstone.
        for path in ledger.stored.keys where !seen.contains(path) && listing.isKnownGone(path) { ledger.remove(path, keys: []) }
        try await ledger.finish()
        if tally.rows > 0 {
            Log.info("listening-history: \(tally.rows) rows read, \(tally.counted) plays queued, \(tally.short) shorter than MinPlayed, \(tally.untitled) without a title")
        }
    }

    // MARK: - Reading

    /// One file: a JSON export, or the export's zip, whose `.json` entries are read as they inflate.
    private func read(_ path: String, named: Bool, into ledger: inout FileLedger<some ItemSink>, tally: inout ListenTally,
                      sink: some ItemSink) async throws {
        do {
            guard try Self.isZip(path) else {
                try await parse(try FileByteStream(path: path), name: path, named: named, into: &ledger, tally: &tally, sink: sink)
                return
            }
            let wanted = { (name: String) in name.lowercased().hasSuffix(".json") }
            let zip: ZipEntryStream
            do { zip = try ZipEntryStream(try FileByteStream(path: path), wanted: wanted) } catch {
                if named { await sink.warn("\(path): \(error)") }      // a zip of something else, in a folder: passed over
                return
            }
            repeat {
                let name = path + ": " + zip.entryName
                let failure = try await parse(zip, name: name, named: false, into: &ledger, tally: &tally, sink: sink)
                // Warned: a damaged entry cannot be followed past; after a broken JSON file the zip reads on.
                if failure?.description.hasPrefix("zip:") == true { return }
            } while try zip.next(wanted: wanted)
        } catch let error as FileReadError {
            await sink.warn("\(path): \(error)")
        }
    }

    /// Reads one export to its end, queuing each play that counts a chunk at a time; one warning
    /// line for what could not be read (the plays before a cut are kept). Returns what broke the input off.
    @discardableResult
    private func parse(_ stream: any ByteStream, name: String, named: Bool, into ledger: inout FileLedger<some ItemSink>,
                       tally: inout ListenTally, sink: some ItemSink) async throws -> FileReadError? {
        var file = ListenFile(minPlayedMs: minPlayedMs)
        var history = try SpotifyHistory(stream)
        guard history.isArray else {
            if named { await sink.warn("\(name): not a Spotify listening history (a JSON array of plays)") }
            return nil
        }
        var failure: FileReadError?
        var more = true
        while more {
            do throws(FileReadError) { more = try file.read(&history, upTo: Self.chunk) } catch { failure = error; more = false }
            try await queue(&file.items, into: &ledger)
        }
        tally.add(file.tally)
        if let notHistory = file.notHistory {
            if named { await sink.warn("\(name): not a Spotify listening history (\(notHistory))") }
            return nil
        }
        var problems: [String] = []
        if let failure { problems.append("\(failure)") }
        if let first = file.firstBad { problems.append("\(file.bad) rows skipped, the first at line \(first)") }
        if !problems.isEmpty { await sink.warn("\(name): " + problems.joined(separator: "; ") + "; kept the \(file.tally.counted) plays read") }
        return failure
    }

    /// Whether the file begins with a zip's local header (`PK\u{3}\u{4}`).
    private static func isZip(_ path: String) throws(FileReadError) -> Bool {
        let head = UnsafeMutableRawBufferPointer.allocate(byteCount: 4, alignment: 4)
        defer { head.deallocate() }
        let stream = try FileByteStream(path: path)
        var got = 0
        while got < 4 {
            let n = try stream.read(into: UnsafeMutableRawBufferPointer(rebasing: head[got...]))
            guard n > 0 else { return false }
            got += n
        }
        return head.elementsEqual([0x50, 0x4B, 0x03, 0x04])
    }

    /// Commits the plays read so far. Not fsync'd: until the file's entry is written (durably,
    /// after its last plays) a crash reads the file again, and the node sees duplicates.
    private func queue(_ items: inout [Item], into ledger: inout FileLedger<some ItemSink>) async throws {
        guard !items.isEmpty else { return }
        try await ledger.commit(items, anchor: AnchorUpdate(durable: false))
        items.removeAll(keepingCapacity: true)
    }
}

/// What a scan read, for its log line.
struct ListenTally: Equatable {
    var rows = 0, counted = 0, short = 0, untitled = 0

    mutating func add(_ other: ListenTally) {
        rows += other.rows; counted += other.counted; short += other.short; untitled += other.untitled
    }
}

/// One export being read: the plays that count, made into items a chunk at a time, and what was
/// passed over. Kept apart from the adapter so the rule is tested on rows, with no store.
struct ListenFile {
    let minPlayedMs: Double
    var items: [Item] = []
    var tally = ListenTally()
    var bad = 0
    /// `line N: why`, of the first bad row.
    var firstBad: String?
    /// Why the file is no listening history after all: its first row is neither shape's.
    var notHistory: String?

    init(minPlayedMs: Double) { self.minPlayedMs = minPlayedMs }

    /// Reads rows until `limit` items wait in `items` (true) or the history ends (false).
    mutating func read(_ history: inout SpotifyHistory, upTo limit: Int) throws(FileReadError) -> Bool {
        while let row = try history.next() {
            switch row {
            case .play(let play):
                tally.rows += 1
                guard play.playedMs >= minPlayedMs else { tally.short += 1; continue }
                items.append(ListenItem.make(play)); tally.counted += 1
                if items.count >= limit { return true }
            case .untitled:
                tally.rows += 1; tally.untitled += 1
            case .bad(let line, let why):
                guard history.isHistory else { notHistory = "line \(line): \(why)"; return false }
                bad += 1; firstBad = firstBad ?? "\(line): \(why)"
            }
        }
        return false
    }
}
