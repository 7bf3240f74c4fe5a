import FoundationEssentials

/// One kind of source: calendar, contacts, photos, health, gpsd, mpris.
///
/// An adapter never posts. `scan` streams what changed since `anchor` into `sink` in chunks;
/// each chunk carries the anchor changes to commit with it, in one transaction, so the anchor
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
}

/// An adapter whose source is live (gpsd, a media player on D-Bus). `watch` runs `follow` for as
/// long as it runs; `scan` is what a timer-only `run` can see (closing what went stale, a snapshot).
public protocol LiveAdapter: DeviceAdapter {
    /// Follows the source until the task is cancelled, committing items with their anchor changes
    /// as they come. Reconnecting to a source that comes and goes is the adapter's job; an error
    /// it throws restarts it after a pause. On cancellation it commits what it holds, then returns.
    func follow(from anchor: Anchor, into sink: some ItemSink) async throws
}

extension DeviceAdapter {
    public var watchedPaths: [String] { [] }

    /// The node's `source` for every item of this adapter type, whatever the instance.
    public static var source: String { "linux-\(type)" }
}

/// Where adapters put what they found.
public protocol ItemSink: Sendable {
    /// Queues `items` and applies `anchor` atomically.
    func commit(_ items: [Item], anchor: AnchorChanges) async throws
    /// A problem with one input (a file, a record) that does not stop the scan.
    func warn(_ message: String) async
    /// For the terminal progress line: a file or record looked at.
    func progress(examined: Int, total: Int?) async
    /// The adapter's journal from time `since` on (see ``JournalEntry``).
    func journal(since: Double) async throws -> [JournalEntry]
    /// Sample buckets (see ``StoredSample``) that gained samples since their items last went out.
    func dirtySampleBuckets() async throws -> [String]
    /// One bucket's samples and what was sent for it.
    func sampleBucket(_ name: String) async throws -> SampleBucket
}

extension ItemSink {
    public func progress(examined: Int, total: Int?) async {}
}

/// A chunk of time-stamped samples an adapter keeps in the state store beside its anchor (gpsd
/// fixes), written with `AnchorChanges.journal` and read back with `ItemSink.journal(since:)`.
/// An entry replaces the one with the same time, so a growing chunk is rewritten in place.
public struct JournalEntry: Sendable, Equatable {
    public var time: Double
    public var data: [UInt8]
    public init(time: Double, data: [UInt8]) { self.time = time; self.data = data }
}

/// A sample an adapter type keeps in the state store (a health measurement), shared by all its
/// instances, in a `bucket` (a local day). `key` says what the sample is (its kind, times and
/// source) and is stored once, so two overlapping exports count once; `value` is what it
/// measured, and a key read again with another value (a corrected spreadsheet cell) replaces it.
/// A new or changed sample marks its bucket dirty; the adapter rolls a dirty bucket up into items
/// and settles it with what it sent, in the same commit as those items.
public struct StoredSample: Sendable, Hashable {
    public var bucket: String
    /// Which run of the source's samples this one belongs to (a kind of measurement): an export
    /// lists each kind in time order, and the store keeps a lane's samples together so such a
    /// listing is written after one another. 0 ..< `laneCount`.
    public var lane: UInt8
    public var key: [UInt8]
    public var value: [UInt8]
    public init(bucket: String, lane: UInt8 = 0, key: [UInt8], value: [UInt8]) {
        precondition(Int(lane) < StoredSample.laneCount, "lane \(lane) is out of range")
        self.bucket = bucket; self.lane = lane; self.key = key; self.value = value
    }

    public static let laneCount = 32
    /// `0, 1, …` for a query's `IN (…)`.
    static let lanes = (0..<laneCount).map(String.init).joined(separator: ", ")
}

/// A bucket's samples, what went out for it last (the adapter's own encoding; nil when nothing
/// has, or after `resync`), and its dirt counter as read, to settle with.
public struct SampleBucket: Sendable {
    public var samples: [StoredSample]
    public var sent: [UInt8]?
    public var dirt: Int64
    public init(samples: [StoredSample], sent: [UInt8]?, dirt: Int64) { self.samples = samples; self.sent = sent; self.dirt = dirt }
}

/// A bucket rolled up: what was sent, and the dirt counter that was read (new samples that
/// arrived meanwhile leave it dirty).
public struct SettledBucket: Sendable {
    public var sent: [UInt8]
    public var dirt: Int64
    public init(sent: [UInt8], dirt: Int64) { self.sent = sent; self.dirt = dirt }
}

/// An adapter instance's saved position, as key → bytes entries (one per file, or one
/// `last-fix`), so a scan of 100 000 files updates rows instead of rewriting one blob.
public struct Anchor: Sendable {
    public var entries: [String: Data]
    public init(_ entries: [String: Data] = [:]) { self.entries = entries }
    public subscript(key: String) -> Data? { entries[key] }
    public var isEmpty: Bool { entries.isEmpty }
}

/// Changes to an anchor, committed together with a chunk of items.
public struct AnchorChanges: Sendable {
    public var updates: [String: Data]
    public var removals: Set<String>
    /// Journal entries to write (or rewrite, by time).
    public var journal: [JournalEntry] = []
    /// Journal entries older than this are dropped.
    public var journalPruneBefore: Double?
    /// Samples to keep (those already stored are ignored), and buckets rolled up by this commit.
    public var samples: [StoredSample] = []
    public var settled: [String: SettledBucket] = [:]
    public init(updates: [String: Data] = [:], removals: Set<String> = []) { self.updates = updates; self.removals = removals }
    public static let none = AnchorChanges()
    public var isEmpty: Bool { updates.isEmpty && removals.isEmpty && journal.isEmpty && journalPruneBefore == nil && samples.isEmpty && settled.isEmpty }
}
