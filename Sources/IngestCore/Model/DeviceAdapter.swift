import FoundationEssentials

/// One kind of source: calendar, contacts, photos, health, gpsd, mpris.
///
/// An adapter never posts. `scan` streams what changed since `anchor` into `sink` in chunks;
/// each chunk carries the anchor update to commit with it, in one transaction, so the anchor
/// never moves past items that are not durably queued.
public protocol DeviceAdapter: Sendable {
    /// `Type=` in adapters.d, the log label and the node `source` suffix: "photos".
    static var type: String { get }
    /// One line for `adapters`.
    static var summary: String { get }
    /// Every key the `[Adapter]` section may hold besides `Type` and `Enabled`.
    static var configKeys: [any ConfigKeyProtocol] { get }
    /// The commented example config shipped as `adapters.d/<type>.conf`.
    static var sampleConfig: String { get }

    init(config: AdapterConfig) throws(ConfigError)

    func scan(since anchor: Anchor, into sink: some ItemSink) async throws

    /// Files and folders whose changes `watch` rescans this adapter for (inotify), besides the
    /// interval. None by default.
    var watchedPaths: [String] { get }

    /// What `doctor` checks for this instance beyond its config: that its folders exist, that its
    /// daemon answers, that its library loads. Each check is bounded (a few seconds at most) and
    /// changes nothing. None by default.
    func doctorChecks() async -> [DoctorCheck]
}

/// An adapter that keeps records beside its anchor (``StateRecord``): an extra power, opted into
/// as Telegraf's `StatefulInput` is. It scans into the record side of its sink (``RecordSink``),
/// reading its records back there and writing them with its commits (``RecordChanges``). An
/// adapter that does not adopt it has no record space, and a commit of records from it is refused.
public protocol RecordKeeping: DeviceAdapter {
    /// Whose records they are: this instance's, or every instance's of the type.
    static var recordScope: RecordScope { get }

    /// `scan`, into a sink that keeps this adapter's records as well.
    func scan(since anchor: Anchor, keeping sink: some RecordSink) async throws
}

extension RecordKeeping {
    public func scan(since anchor: Anchor, into sink: some ItemSink) async throws {
        try await scan(since: anchor, keeping: Self.recordSink(sink))
    }

    /// `sink`'s record side. Every sink `run` and `watch` make has one; a sink without it is refused.
    public static func recordSink(_ sink: some ItemSink) throws(RecordScopeError) -> any RecordSink {
        guard let keeping = sink as? any RecordSink else { throw RecordScopeError() }
        return keeping
    }
}

/// An adapter whose source is live (gpsd, a media player on D-Bus). `watch` runs `follow` for as
/// long as it runs; `scan` is what a timer-only `run` can see (closing what went stale, a snapshot).
public protocol LiveAdapter: DeviceAdapter {
    /// Follows the source until the task is cancelled, committing items with their anchor updates
    /// as they come. Reconnecting to a source that comes and goes is the adapter's job; an error
    /// it throws restarts it after a pause. On cancellation it commits what it holds, then returns.
    func follow(from anchor: Anchor, into sink: some ItemSink) async throws
}

extension DeviceAdapter {
    public var watchedPaths: [String] { [] }
    public func doctorChecks() async -> [DoctorCheck] { [] }

    /// The node's `source` for every item of this adapter type, whatever the instance.
    public static var source: String { "linux-\(type)" }
}

/// Where adapters put what they found.
public protocol ItemSink: Sendable {
    /// Queues `items` and applies `anchor` atomically.
    func commit(_ items: [Item], anchor: AnchorUpdate) async throws
    /// A problem with one input (a file, a record) that does not stop the scan.
    func warn(_ message: String) async
    /// For the terminal progress line: a file or record looked at.
    func progress(examined: Int, total: Int?) async
}

extension ItemSink {
    public func progress(examined: Int, total: Int?) async {}
}

/// A sink's side for a ``RecordKeeping`` adapter: its records as committed so far, and commits
/// that write records in the same transaction as their items and anchor update.
public protocol RecordSink: ItemSink {
    /// The adapter's records (see ``StateRecord``), as committed so far.
    var records: AdapterRecords { get }
    /// Queues `items` and applies `anchor` and `records` atomically.
    func commit(_ items: [Item], anchor: AnchorUpdate, records: RecordChanges) async throws
}

extension RecordSink {
    public func commit(_ items: [Item], anchor: AnchorUpdate) async throws {
        try await commit(items, anchor: anchor, records: RecordChanges())
    }
}

/// An adapter instance's saved position, as key → bytes entries (one per file, or one
/// `last-fix`), so a scan of 100 000 files updates rows instead of rewriting one blob.
public struct Anchor: Sendable {
    public var entries: [String: Data]
    public init(_ entries: [String: Data] = [:]) { self.entries = entries }
    public subscript(key: String) -> Data? { entries[key] }
    public var isEmpty: Bool { entries.isEmpty }
}

/// The entries of an anchor to set and to drop, committed in one transaction with a chunk of
/// items, so the anchor never moves past items that are not durably queued.
public struct AnchorUpdate: Sendable {
    public var updates: [String: Data]
    public var removals: Set<String>
    /// False when a power cut that undoes this commit only means reading its input again (records
    /// read from a file whose anchor is committed durably after them): it is then not fsynced.
    public var durable: Bool
    public init(updates: [String: Data] = [:], removals: Set<String> = [], durable: Bool = true) {
        self.updates = updates; self.removals = removals; self.durable = durable
    }
    public static let none = AnchorUpdate()
    public var isEmpty: Bool { updates.isEmpty && removals.isEmpty }
}
