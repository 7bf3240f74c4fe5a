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
    static func parse(path: String, bytes: [UInt8], namedDirectly: Bool, limits: RecurrenceLimits, lookAhead: Int64) -> TrackedFiles.Parse {
        let clock = ContinuousClock()
        let started = clock.now
        let contents: ICalendarContents
        do { contents = try ICalDocument.read(bytes, limits: limits) } catch { return .failed(error.description) }
        let parsed = clock.now
        let folder = path.deletingLastPathComponent
        let uids = Set(contents.components.map(\.uid))
        let fileName = path.lastPathComponent
        let stem = fileName.lowercased().hasSuffix(".ics") ? String(fileName.dropLast(4)) : fileName
        let collection = displayName(in: folder) ?? contents.calendarName
            ?? (uids.count == 1 && !namedDirectly ? folder.lastPathComponent : stem)
        let made = CalendarItems(collection: collection, limits: limits, lookAhead: lookAhead).make(contents.components)
        Log.debug("\(path): \(contents.components.count) components parsed and expanded in \(milliseconds(parsed - started)) ms, "
                  + "\(made.items.count) items planned in \(milliseconds(clock.now - parsed)) ms")
        return .parsed(made.items, warnings: contents.problems, refreshAfter: made.refreshAt.map { Date(timeIntervalSince1970: Double($0)) },
                       retained: made.retained)
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
