import FoundationEssentials
import IngestCore

/// `Type=location-history`: visits and trips from location-history exports — GPX tracks,
/// Google Takeout (Records.json, Semantic Location History, Timeline Edits, in folders or zips),
/// the phones' Timeline exports (Android's Timeline.json, the iPhone's location-history.json),
/// OwnTracks Recorder `.rec` files, GeoJSON points, and fitness and map files (KML and KMZ,
/// TCX, FIT; gzipped, and in zips within zips).
///
/// Every point and stated visit read is kept in the state store, by UTC day, keyed by its
/// content; an unchanged file is not opened again. When a scan stored anything new, the visits
/// and trips of the days it touched are derived again through the shared filter and stay-point
/// detector (``HistoryPlaces``, ``HistoryWindows``), and an item goes out only when its version changed. Raw points
/// never leave the machine: only visits and trips are sent.
public struct LocationHistoryAdapter: DeviceAdapter, RecordKeeping {
    public static let type = "location-history"
    public static let recordScope = RecordScope.instance
    public static let summary = "location-history exports (GPX, Google Takeout, the Android and iPhone Timeline exports, OwnTracks .rec, GeoJSON, KML/KMZ, TCX, FIT) as visits and trips; DeviceTag= picks a Records.json device"
    enum Key {
        static let path = ConfigKey("Path", repeated: .path, "an export file, zip, or a folder walked recursively for exports")
        static let exclude = ConfigKey("Exclude", repeated: .string, "a glob over the whole path to leave out")
        static let deviceTag = ConfigKey("DeviceTag", repeated: .integer,
                                         "a device whose points count (Records.json deviceTag, Timeline Edits deviceId); unset: per day the one with the most points")
    }
    public static let configKeys: [any ConfigKeyProtocol] = [Key.path, Key.exclude, Key.deviceTag] + PlaceKeys.detectorKeys
    public static let sampleConfig = String(decoding: PackageResources.location_history_conf, as: UTF8.self)

    let roots: [String]
    let excludes: [String]
    let places: HistoryPlaces

    public init(config: AdapterConfig) throws(ConfigError) {
        let section = config.section
        roots = try section.value(Key.path, where: { !$0.isEmpty }, else: { _ in "missing; name at least one export file or folder" })
        excludes = section[Key.exclude]
        var places = HistoryPlaces(settings: try PlaceTracker.Settings(section: section))
        places.devices.picked = Set(section[Key.deviceTag].map(Int64.init))
        self.places = places
    }

    public var watchedPaths: [String] { roots }

    /// `doctor`: every `Path=` exists and may be read.
    public func doctorChecks() async -> [DoctorCheck] { DoctorCheck.paths(watchedPaths) }

    static let prefix = "f:"

    public func scan(since anchor: Anchor, keeping sink: some RecordSink) async throws {
        let listing = await FileListing.list(roots: roots, excludes: excludes, accepts: { !$0.hasPrefix(".") }, sink: sink)
        var ledger = FileLedger(anchor: anchor, prefix: LocationHistoryAdapter.prefix, into: sink, itemsPerChunk: 1, entriesPerChunk: 1)
        var seen = Set<String>()
        for (n, file) in listing.files.enumerated() {
            seen.insert(file.name)
            await sink.progress(examined: n + 1, total: listing.files.count)
            if let old = ledger.stored[file.name].flatMap(FileRecord.init), old.stamp.matches(file.stamp) { continue }   // not opened
            try await read(file, into: &ledger, sink: sink)
        }
        // A deleted or moved export's points stay: exports overlap, and its copy may be elsewhere.
        for path in ledger.stored.keys where !seen.contains(path) && listing.isKnownGone(path) { ledger.remove(path, keys: []) }
        try await ledger.finish()
        try await derive(into: sink)
    }

    // MARK: - Reading

    private func read(_ file: FolderWalker.Entry, into ledger: inout FileLedger<some RecordSink>, sink: some ItemSink) async throws {
        let path = file.name
        do {
            let reader = BlockReader(try FileByteStream(path: path))
            if try await !readContent(reader, name: path, depth: 0, into: &ledger, sink: sink).known, roots.contains(path) {
                await sink.warn("\(path): not a location-history export this adapter knows (GPX, KML, TCX, FIT, Takeout or Timeline JSON, OwnTracks .rec, GeoJSON)")
            }
        } catch let error as FileReadError {
            await sink.warn("\(path): \(error)")
        }
        ledger.write(path, FileRecord(stamp: file.stamp, hash: "").encoded, keys: [])
        try await ledger.commitIfFull()
    }

    /// How deep zips and gzips may nest (Garmin's export: a zip of zips of `.fit` files).
    static let maxNesting = 3

    /// Reads a stream as what its content is: a zip's export entries, a gzip's content, or an
    /// export. Returns whether it was any of them, and what broke a zip off (already warned).
    private func readContent(_ reader: BlockReader, name: String, depth: Int, into ledger: inout FileLedger<some RecordSink>,
                             sink: some ItemSink) async throws -> (known: Bool, failure: FileReadError?) {
        var reader = reader
        let head = reader.head(64 * 1024)
        let nested = depth < LocationHistoryAdapter.maxNesting
        if head.starts(with: [0x50, 0x4B, 0x03, 0x04]), nested {
            return (true, try await readZip(BlockReaderStream(reader), name: name, depth: depth + 1, into: &ledger, sink: sink))
        }
        if head.starts(with: [0x1F, 0x8B]), nested {
            let content = BlockReader(try GzipStream(BlockReaderStream(reader)))
            return try await readContent(content, name: name, depth: depth + 1, into: &ledger, sink: sink)
        }
        guard let format = HistoryFormat.detect(head) else { return (false, nil) }
        return (true, try await parse(format.parser(reader), format: format, name: name, into: &ledger, sink: sink))
    }

    /// The exports in a zip (a Takeout, a KMZ, Strava's or Garmin's bulk export): every entry
    /// named like one (`.json`, `.gpx`, `.rec`, `.geojson`, `.kml`, `.tcx`, `.fit`, `.gz`, and
    /// zips within; photos and mail are passed over unread), each known by its content. Returns
    /// what broke the archive off, warned.
    private func readZip(_ stream: any ByteStream, name path: String, depth: Int, into ledger: inout FileLedger<some RecordSink>,
                         sink: some ItemSink) async throws -> FileReadError? {
        func wanted(_ name: String) -> Bool {
            let lower = name.lowercased()
            return [".json", ".gpx", ".rec", ".geojson", ".kml", ".tcx", ".fit", ".gz", ".zip", ".kmz"].contains { lower.hasSuffix($0) }
        }
        let zip: ZipEntryStream
        do { zip = try ZipEntryStream(stream, wanted: wanted) } catch {
            // A zip of something else, in a folder: passed over as any other file is.
            if roots.contains(path) { await sink.warn("\(path): \(error)") }
            return nil
        }
        while true {
            let name = path + ": " + zip.entryName
            do {
                if let failure = try await readContent(BlockReader(zip), name: name, depth: depth, into: &ledger, sink: sink).failure,
                   failure.description.hasPrefix("zip:") {
                    return failure      // warned: a damaged entry, the archive cannot be followed past it
                }
                guard try zip.next(wanted: wanted) else { return nil }
            } catch let error as FileReadError {
                await sink.warn("\(name): \(error)")
                return error
            }
        }
    }

    /// Reads one export to its end, storing each full batch as it comes; one warning line for
    /// what could not be read, and what came before a cut counts. Returns what broke the input off.
    @discardableResult
    private func parse(_ parser: any HistoryParser, format: HistoryFormat, name: String, into ledger: inout FileLedger<some RecordSink>,
                       sink: some ItemSink) async throws -> FileReadError? {
        var parser = parser
        var batch = HistoryBatch()
        var failure: FileReadError?
        var more = true
        while more {
            do throws(FileReadError) { more = try parser.read(into: &batch) } catch { failure = error; more = false }
            let points = RecordChanges(records: batch.takeRecords())
            // Points alone can be read again from the export: the durable commit of the file's
            // ledger entry comes after them and takes them along.
            if !points.isEmpty { try await ledger.commit(anchor: AnchorUpdate(durable: false), records: points) }
        }
        Log.info("\(name): \(batch.read) records read as \(format.rawValue)")
        var problems: [String] = []
        if let failure { problems.append("\(failure)") }
        if batch.bad > 0 { problems.append("\(batch.bad) unreadable records skipped, the first at line \(batch.firstBad ?? 0)") }
        if !problems.isEmpty {
            await sink.warn("\(name): " + problems.joined(separator: "; ") + (batch.read > 0 ? "; kept the \(batch.read) read" : ""))
        }
        return failure
    }

    // MARK: - Deriving

    /// When anything new was stored (or the settings that shape visits changed): the visits and
    /// trips of the days it touched, derived again (``HistoryWindows``); those whose version
    /// changed are queued, and a tombstone for a key no longer derived (``HistoryDelivery``).
    private func derive(into sink: some RecordSink) async throws {
        let records = sink.records
        let last = HistoryDerivationState(try records.settled(in: HistoryDerivationState.group))
        let resettled = last.map { $0.settings != HistoryDerivationState.settings(places) } ?? false
        let changed = try records.changedGroups()
        guard resettled || !changed.isEmpty else { return }
        let result = try HistoryWindows(places: places, records: records, now: Date().timeIntervalSince1970).derive()
        let rejected = result.windows.reduce(0) { $0 + $1.derived.rejected }
        if rejected > 0 { await sink.warn("dropped \(rejected) points (over MaxError, implausible time, or faster than MaxSpeed)") }
        var delivery = try HistoryDelivery(sink)
        for window in result.windows {
            try await delivery.send(window, days: result.days)
            delivery.store(window.derived.unshelved)
        }
        let (warnings, told) = try deviceWarnings(result.devices, records)
        for warning in warnings { await sink.warn(warning) }
        if let told { delivery.settle(told) }
        if result.state != last { delivery.settle((HistoryDerivationState.group, SettledGroup(state: result.state.encoded, changes: 0))) }
        try await delivery.finish()
        let (visits, trips) = result.windows.reduce((0, 0)) { ($0.0 + $1.derived.visits.count, $0.1 + $1.derived.trips.count) }
        Log.info("location-history: \(result.windows.count) windows, \(visits) visits, \(trips) trips derived; \(delivery.count) items queued")
    }

    /// What to tell of the devices of tagged exports: on every derivation, a `DeviceTag=` that
    /// names none of them; once, when there are two or more and the user was not told of these
    /// before, the devices (with their names from Settings.json) and their points. And the
    /// `devices` group's state to settle: what the user was told of.
    private func deviceWarnings(_ counts: [Int64: Int], _ records: AdapterRecords) throws -> ([String], (String, SettledGroup)?) {
        let group = try records.group(HistoryRecords.devicesGroup)
        var names: [Int64: String] = [:]
        for record in group.records { Int64(String(decoding: record.key, as: UTF8.self)).map { names[$0] = String(decoding: record.value, as: UTF8.self) } }
        let listed = counts.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
            .map { tag, n in "\(tag) (" + (names[tag].map { $0 + ", " } ?? "") + "\(n) points)" }.joined(separator: ", ")
        let picked = places.devices.picked
        var warnings: [String] = []
        let missing = picked.subtracting(counts.keys)
        if !missing.isEmpty, !counts.isEmpty {
            warnings.append("location-history: DeviceTag=\(missing.sorted().map(String.init).joined(separator: ", ")) names no device of the exports, which hold \(listed)")
        }
        let state = Array(counts.keys.sorted().map(String.init).joined(separator: " ").utf8)
        let tell = counts.count > 1 && group.settled != state
        if tell {
            let rule = picked.isEmpty
                ? "each local day uses the one with the most points, the others only in hours it has none; DeviceTag= picks devices"
                : "DeviceTag= picks " + picked.sorted().map(String.init).joined(separator: ", ")
            warnings.insert("location-history: the exports hold points of \(counts.count) devices: \(listed); \(rule)", at: 0)
        }
        guard tell || group.changes > 0 else { return (warnings, nil) }
        return (warnings, (HistoryRecords.devicesGroup, SettledGroup(state: tell ? state : group.settled ?? [], changes: group.changes)))
    }
}
