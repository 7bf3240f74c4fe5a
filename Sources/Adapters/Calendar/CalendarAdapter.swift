import FoundationEssentials
import IngestCore

/// `Type=calendar`: VEVENTs as `calendar` items (one per occurrence) and VTODOs as `reminders`
/// items, from .ics files and vdir folders, parsed with libical.
///
/// `TrackedFiles` keeps per-file anchors and sends tombstones; this type turns one file's bytes
/// into items. A file is read again, even unchanged, once the window reaches an occurrence it
/// held back.
public struct CalendarAdapter: DeviceAdapter {
    public static let type = "calendar"
    public static let summary = "events (one item per occurrence) and to-dos from .ics files and vdir folders (vdirsyncer, khal)"
    enum Key {
        static let path = ConfigKey("Path", repeated: .path, "an .ics file, or a folder scanned recursively for .ics files")
        static let exclude = ConfigKey("Exclude", repeated: .string, "a glob over the whole path to leave out")
        static let lookAhead = ConfigKey("LookAhead", .duration, default: "90d", "how far past now recurring series are expanded")
        static let maxOccurrences = ConfigKey("MaxOccurrences", .integer, default: "5000",
                                              "occurrences per series at most, the ones nearest the window's end")
    }
    public static let configKeys: [any ConfigKeyProtocol] = [Key.path, Key.exclude, Key.lookAhead, Key.maxOccurrences]
    public static let sampleConfig = String(decoding: PackageResources.calendar_conf, as: UTF8.self)

    let files: TrackedFiles
    /// Seconds.
    let lookAhead: Int64
    let maxOccurrences: Int

    public init(config: AdapterConfig) throws(ConfigError) {
        let section = config.section
        let roots = try section.value(Key.path, where: { !$0.isEmpty }, else: { _ in "missing; name at least one .ics file or folder" })
        files = TrackedFiles(roots: roots, excludes: section[Key.exclude], accepts: CalendarAdapter.isCalendarFile)
        lookAhead = Int64(section[Key.lookAhead])
        maxOccurrences = try section.value(Key.maxOccurrences, where: { $0 > 0 }, else: { _ in "must be at least 1" })
    }

    public var watchedPaths: [String] { files.roots }

    /// `doctor`: every `Path=` exists and may be read, and libical loads.
    public func doctorChecks() async -> [DoctorCheck] {
        let library: DoctorCheck = ICalDocument.libraryLoads ? .ok("libical", "loads")
            : .fail("libical", ICalError.libraryUnavailable.description, fix: "sudo apt install libical3")
        return DoctorCheck.paths(watchedPaths) + [library]
    }

    public func scan(since anchor: Anchor, into sink: some ItemSink) async throws {
        try await scan(since: anchor, into: sink, now: Date())
    }

    /// `scan` with the clock given, so tests can move the window.
    func scan(since anchor: Anchor, into sink: some ItemSink, now: Date) async throws {
        let limits = RecurrenceLimits(windowEnd: Int64(now.timeIntervalSince1970) + lookAhead, maxPerSeries: maxOccurrences)
        let roots = Set(files.roots)
        let lookAhead = lookAhead
        try await files.scan(since: anchor, into: sink, now: now) { path, bytes in
            CalendarAdapter.parse(path: path, bytes: bytes, namedDirectly: roots.contains(path), limits: limits, lookAhead: lookAhead)
        }
    }

    /// One file's items. The collection's name is vdirsyncer's `displayname` beside the file,
    /// else the calendar's X-WR-CALNAME, else the folder's name for a file of one event or to-do
    /// (a vdir item) and the file's own name for a file of several (an export) or one named in `Path=`.
    ///
    /// A file cut into pieces (each with a UID's series and overrides together) is streamed: each
    /// piece's items are recorded while libical reads the next.
    static func parse(path: String, bytes: [UInt8], namedDirectly: Bool, limits: RecurrenceLimits, lookAhead: Int64) -> TrackedFiles.Parse {
        let naming = Naming(path: path, namedDirectly: namedDirectly)
        guard let pieces = ICalPieces(bytes) else {
            return parseWhole(path: path, bytes: bytes, pieces: nil, naming: naming, limits: limits, lookAhead: lookAhead, deliver: nil)
        }
        return .streamed(parts: pieces.count) { deliver in
            withoutActuallyEscaping(deliver) { deliver in
                parseWhole(path: path, bytes: bytes, pieces: pieces, naming: naming, limits: limits, lookAhead: lookAhead, deliver: deliver)
            }
        }
    }

    /// The parse; with `deliver`, the items of the pieces read once the collection's name is known
    /// are given to it, the rest are in the `.parsed` returned.
    private static func parseWhole(path: String, bytes: [UInt8], pieces: ICalPieces?, naming: Naming, limits: RecurrenceLimits, lookAhead: Int64,
                                   deliver: ((TrackedFiles.FileItems) -> Void)?) -> TrackedFiles.Parse {
        let clock = ContinuousClock()
        let started = clock.now
        var planning = Duration.zero, waiting = Duration.zero     // waiting: while the recorder has two pieces to take
        var refreshAt: Int64?
        var retained: [ItemKey] = []
        var componentsDelivered = 0, itemsDelivered = 0
        func planned(_ components: [CalendarComponent], _ collection: String) -> TrackedFiles.FileItems {
            let before = clock.now
            defer { planning += clock.now - before }
            let made = CalendarItems(collection: collection, limits: limits, lookAhead: lookAhead).make(components)
            refreshAt = [refreshAt, made.refreshAt].compactMap { $0 }.min()
            retained += made.retained
            return made.items
        }
        let contents: ICalendarContents
        do {
            contents = try ICalDocument.read(bytes, pieces: pieces, limits: limits, eachPiece: deliver.map { deliver in { components, calendarName in
                guard let collection = naming.displayName ?? calendarName else { return false }     // not known yet: kept till the end
                let items = planned(components, collection)
                componentsDelivered += components.count; itemsDelivered += items.count
                let before = clock.now
                deliver(items)
                waiting += clock.now - before
                return true
            } })
        } catch { return .failed(error.description) }
        let rest = planned(contents.components, naming.collection(calendarName: contents.calendarName, components: contents.components))
        Log.debug("\(path): \(componentsDelivered + contents.components.count) components parsed and expanded in \(milliseconds(clock.now - started - planning - waiting)) ms, "
                  + "\(itemsDelivered + rest.count) items planned in \(milliseconds(planning)) ms")
        return .parsed(rest, warnings: contents.problems, refreshAfter: refreshAt.map { Date(timeIntervalSince1970: Double($0)) }, retained: retained)
    }

    /// What a file's collection is called.
    private struct Naming {
        let folder: String
        let stem: String
        let namedDirectly: Bool
        /// vdirsyncer's, read once.
        let displayName: String?

        init(path: String, namedDirectly: Bool) {
            folder = path.deletingLastPathComponent
            let fileName = path.lastPathComponent
            stem = fileName.lowercased().hasSuffix(".ics") ? String(fileName.dropLast(4)) : fileName
            self.namedDirectly = namedDirectly
            displayName = CalendarAdapter.displayName(in: folder)
        }

        /// The name, when the file's calendar name and all its components are known.
        func collection(calendarName: String?, components: [CalendarComponent]) -> String {
            displayName ?? calendarName ?? (Set(components.map(\.uid)).count == 1 && !namedDirectly ? folder.lastPathComponent : stem)
        }
    }

    private static func milliseconds(_ d: Duration) -> String {
        let ms = Double(d.components.seconds) * 1000 + Double(d.components.attoseconds) / 1e15
        return String(Double(Int(ms * 10)) / 10)
    }

    /// vdirsyncer's metadata file `displayname` in a collection's folder, first line trimmed.
    static func displayName(in folder: String) -> String? {
        guard let bytes = try? FileSystem.readBytes(folder + "/displayname", limit: 4096) else { return nil }
        let name = String(decoding: bytes, as: UTF8.self).split(separator: "\n").first.map { String($0).trimmed } ?? ""
        return name.isEmpty ? nil : name
    }

    static func isCalendarFile(_ name: String) -> Bool { name.lowercased().hasSuffix(".ics") }
}
