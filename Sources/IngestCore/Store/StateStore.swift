import FoundationEssentials
import Synchronization

/// One queued item, as the gate reads it back from the outbox.
public struct OutboxEntry: Sendable {
    public var id: Int64
    public var lane: Int64
    public var endpoint: Endpoint
    public var source: String
    public var adapter: String
    public var key: String
    public var version: String?
    public var deleted: Bool
    /// The item's JSON, exactly as it goes into the batch.
    public var body: [UInt8]
}

/// A stream of items for one `(endpoint, source)`: the unit of fair draining.
public struct Lane: Sendable, Hashable, CustomStringConvertible {
    /// The row id in the `lanes` table; outbox rows carry it instead of two strings.
    public var id: Int64
    public var endpoint: Endpoint
    public var source: String
    public var description: String { "\(endpoint.rawValue)/\(source)" }
}

/// The agent's state file (`$STATE/state.db`, SQLite in WAL mode): the outbox, anchors and
/// adapters' records, dead letters, per-adapter stats and a little node state. Split by concern:
/// `+Outbox` (queueing and draining), `+Anchors`, `+Records`, `+Status`, `+Schema`.
///
/// Every write is a transaction with `synchronous=FULL`, so a commit is on disk when it
/// returns: an adapter's items and its new anchor land together or not at all.
public final class StateStore: Sendable {
    public let db: SQLiteDatabase
    public var path: String { db.path }
    let laneIDs = Locked<[String: Int64]>([:])

    static let schemaVersion: Int64 = 4
    /// 16 KiB pages: a store of millions of small records (health samples) fills with less CPU
    /// than with SQLite's 4 KiB, as its B-tree is shallower and holds fewer cells per byte.
    static let pageSize = 16_384

    /// Opens the store, creating the state directory (0700) and the schema when needed.
    public init(paths: Paths) throws(StoreError) {
        do { try FileSystem.ensureDirectory(paths.stateDir) } catch { throw StoreError.fileSystem(error) }
        try StateStore.refuseNewerSchema(paths.stateDatabase)
        do {
            // A new store is made whole in one go; the checks below then find it current.
            try SQLiteDatabase.createIfAbsent(paths.stateDatabase) { (scratch) throws(SQLiteError) in
                try scratch.execute("PRAGMA page_size=\(StateStore.pageSize)")
                try StateStore.migrate(scratch)
            }
            db = try SQLiteDatabase(path: paths.stateDatabase)
            let version = try db.withConnection { (c) throws(SQLiteError) -> Int64 in
                let version = try c.scalar("PRAGMA user_version")
                if version < StateStore.schemaVersion {
                    // Only a new file takes the page size (WAL fixes it once written).
                    try c.execute("PRAGMA page_size=\(StateStore.pageSize); PRAGMA journal_mode=WAL")
                }
                // Checkpoint at about 32 MB of WAL, whatever the file's page size (a store made
                // before 16 KiB pages keeps 4 KiB ones).
                let pageSize = max(512, try c.scalar("PRAGMA page_size"))
                try c.execute("""
                    PRAGMA wal_autocheckpoint=\((32 << 20) / pageSize); PRAGMA synchronous=FULL;
                    PRAGMA foreign_keys=OFF; PRAGMA temp_store=MEMORY
                    """)
                return version
            }
            // The common case, a store of this version, takes no further look.
            if version < StateStore.schemaVersion { try StateStore.migrate(db) }
        } catch {
            throw StoreError.sqlite(error)
        }
    }

    /// A new, empty store in a scratch file that is never fsynced (see ``PreviewStore``).
    init(throwawayAt path: String) throws(StoreError) {
        do {
            db = try SQLiteDatabase(path: path, throwaway: true)
            try db.execute("PRAGMA page_size=\(StateStore.pageSize); PRAGMA temp_store=MEMORY")
            try StateStore.migrate(db)
        } catch { throw StoreError.sqlite(error) }
    }

    /// Opens an existing store read-only (for `--dry-run` and `status`); nil when there is none yet.
    public init?(readOnlyAt paths: Paths) throws(StoreError) {
        guard FileSystem.exists(paths.stateDatabase) else { return nil }
        try StateStore.refuseNewerSchema(paths.stateDatabase)
        do {
            db = try SQLiteDatabase(path: paths.stateDatabase, readOnly: true)
            _ = try db.withConnection { (c) throws(SQLiteError) in try c.scalar("SELECT count(*) FROM sqlite_master") }
        } catch { throw StoreError.sqlite(error) }
    }

    /// Runs `body` on the connection: reads, and writes that need no transaction of their own.
    func read<R: Sendable>(_ body: (borrowing SQLiteConnection) throws(SQLiteError) -> R) throws(StoreError) -> R {
        do { return try db.withConnection(body) } catch { throw StoreError.sqlite(error) }
    }

    /// Runs `body` in one transaction; `durable` false skips the fsync (see `SQLiteDatabase.transaction`).
    @discardableResult
    func write<R: Sendable>(durable: Bool = true, _ body: (borrowing SQLiteConnection) throws(SQLiteError) -> R) throws(StoreError) -> R {
        do { return try db.transaction(durable: durable, body) } catch { throw StoreError.sqlite(error) }
    }
}

/// A failure of the state store: one line naming the file and what went wrong.
public enum StoreError: Error, Sendable, CustomStringConvertible {
    case sqlite(SQLiteError)
    case fileSystem(FileSystemError)
    /// An adapter used the store against its own declaration (records from one that is not ``RecordKeeping``).
    case misuse(String)
    /// The store was written by a newer agent, whose schema this one does not know.
    case newerSchema(path: String, found: Int64, known: Int64)

    public var description: String {
        switch self {
        case .sqlite(let e): e.description
        case .fileSystem(let e): e.description
        case .misuse(let message): message
        case .newerSchema(let path, let found, let known):
            "\(path) was written by a newer hearthloom-ingest (state schema \(found); this \(AgentVersion.string) knows up to \(known)): install that version or a later one; nothing was changed"
        }
    }
}
