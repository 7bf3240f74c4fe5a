import CSQLite
import FoundationEssentials
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A value bound to or read from a statement.
public enum SQLValue: Sendable {
    case null
    case int(Int64)
    case double(Double)
    case text(String)
    case blob([UInt8])
}

/// One SQLite database file. Owns one `sqlite3 *` from `init` until `close()`, with a cache of
/// prepared statements; all use goes through `withConnection`, under a lock.
public final class SQLiteDatabase: Sendable {
    public let path: String
    private let throwaway: Bool
    /// Whether closing leaves the WAL for the next process (see `close()`).
    private let keepsWAL: Bool

    /// Up to this much WAL stays when the last connection closes. A process that finds the WAL
    /// in place appends to it: a commit costs one fsync of it (SQLite's one fsync of the folder
    /// per process finds nothing to write). One that starts a new WAL pays for its header and
    /// the folder's new entry too, and the closing checkpoint two more fsyncs. Opening reads the
    /// kept WAL to rebuild its index, in time that grows with its size, so it stays small: a `capture`
    /// (queue, then send) adds about 80 KiB to the state store's, and checkpoints every 6th run.
    static let walKeptAtClose: Int64 = 512 << 10
    private let state: Locked<State>

    private struct State: ~Copyable {
        var db: OpaquePointer?
        let statements = StatementCache()
    }

    /// Opens (creating if needed) `path`.
    /// - Parameter readOnly: open without write access and without creating the file.
    /// - Parameter throwaway: a scratch file whose loss costs nothing: never fsynced.
    public init(path: String, readOnly: Bool = false, throwaway: Bool = false, busyTimeoutMS: Int32 = 15_000) throws(SQLiteError) {
        var db: OpaquePointer?
        // URIs let a throwaway database attach another read-only (`file:…?mode=ro`).
        let flags = (readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE) | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_URI
        let rc = sqlite3_open_v2(path, &db, flags, nil)
        guard rc == SQLITE_OK, let db else {
            defer { sqlite3_close_v2(db) }   // a failed open still allocates: read the message, then free
            throw SQLiteError(rc, db, function: "sqlite3_open_v2", path: path)
        }
        sqlite3_busy_timeout(db, busyTimeoutMS)
        sqlite3_extended_result_codes(db, 1)
        if throwaway { sqlite3_exec(db, "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF", nil, nil, nil) }
        else if !readOnly {
            // A checkpoint costs two fsyncs, and SQLite's default (every 1000 pages of WAL) makes a
            // full scan checkpoint often; a larger WAL between checkpoints leaves commits as durable.
            sqlite3_exec(db, "PRAGMA wal_autocheckpoint=8192", nil, nil, nil)
            csqlite_checkpoint_on_close(db, 0)
        }
        self.path = path
        self.throwaway = throwaway
        self.keepsWAL = !readOnly && !throwaway
        self.state = Locked(State(db: db))
    }

    /// Runs `body` with exclusive use of the connection.
    public func withConnection<R: Sendable>(_ body: (borrowing SQLiteConnection) throws(SQLiteError) -> R) throws(SQLiteError) -> R {
        let path = self.path
        return try state.withLock { (state: inout State) throws(SQLiteError) -> R in
            guard let db = state.db else { throw SQLiteError.closed(path: path) }
            let connection = SQLiteConnection(db: db, path: path, cache: state.statements)
            return try body(connection)
        }
    }

    /// Runs `body` inside `BEGIN IMMEDIATE … COMMIT`, rolling back when it throws.
    /// IMMEDIATE takes the write lock up front, so concurrent writers wait (busy timeout)
    /// instead of failing halfway. With `durable` false the commit is not fsynced (the database
    /// stays consistent; a power cut may only undo it), for writes that are safe to lose.
    public func transaction<R: Sendable>(durable: Bool = true, _ body: (borrowing SQLiteConnection) throws(SQLiteError) -> R) throws(SQLiteError) -> R {
        try withConnection { (c) throws(SQLiteError) -> R in
            let relaxed = !durable && !throwaway
            if relaxed { try c.execute("PRAGMA synchronous=NORMAL") }
            defer { if relaxed { try? c.execute("PRAGMA synchronous=FULL") } }
            try c.execute("BEGIN IMMEDIATE")
            do throws(SQLiteError) {
                let result = try body(c)
                try c.execute("COMMIT")
                return result
            } catch {
                try? c.execute("ROLLBACK")
                throw error
            }
        }
    }

    public func execute(_ sql: String) throws(SQLiteError) {
        try withConnection { (c) throws(SQLiteError) in try c.execute(sql) }
    }

    /// Safe to call twice.
    public func close() {
        state.withLock { state in
            for (_, stmt) in state.statements.byText { sqlite3_finalize(stmt) }
            state.statements.byText = [:]
            guard let db = state.db else { return }
            // A large WAL is checkpointed into the database and removed, as SQLite does by default.
            var wal = stat()
            if keepsWAL, stat(path + "-wal", &wal) == 0, Int64(wal.st_size) > SQLiteDatabase.walKeptAtClose {
                csqlite_checkpoint_on_close(db, 1)
            }
            sqlite3_close_v2(db)
            state.db = nil
        }
    }

    deinit { close() }
}

/// A connection's prepared statements by SQL text. A class, so a connection can hold it by
/// reference: it is only touched under the database's lock.
final class StatementCache {
    var byText: [String: OpaquePointer] = [:]
}

/// The open connection, lent to a `withConnection` body. Not storable, not Sendable.
public struct SQLiteConnection: ~Copyable {
    let db: OpaquePointer
    let path: String
    private let cache: StatementCache

    init(db: OpaquePointer, path: String, cache: StatementCache) {
        self.db = db; self.path = path; self.cache = cache
    }

    /// Runs one or more statements without results.
    public func execute(_ sql: String) throws(SQLiteError) {
        let rc = sqlite3_exec(db, sql, nil, nil, nil)
        guard rc == SQLITE_OK else { throw SQLiteError(rc, db, function: "sqlite3_exec", path: path, sql: sql) }
    }

    /// Runs one statement with `binds`; returns the number of rows it changed.
    @discardableResult
    public func run(_ sql: String, _ binds: [SQLValue] = []) throws(SQLiteError) -> Int {
        let stmt = try prepared(sql, binds)
        let rc = sqlite3_step(stmt)
        guard rc == SQLITE_DONE || rc == SQLITE_ROW else { throw SQLiteError(rc, db, function: "sqlite3_step", path: path, sql: sql) }
        sqlite3_reset(stmt)
        return Int(sqlite3_changes(db))
    }

    /// Steps through the rows of one statement; `row` returns false to stop early.
    public func query(_ sql: String, _ binds: [SQLValue] = [], _ row: (SQLiteRow) throws(SQLiteError) -> Bool) throws(SQLiteError) {
        let stmt = try prepared(sql, binds)
        defer { sqlite3_reset(stmt) }
        while true {
            let rc = sqlite3_step(stmt)
            if rc == SQLITE_DONE { return }
            guard rc == SQLITE_ROW else { throw SQLiteError(rc, db, function: "sqlite3_step", path: path, sql: sql) }
            if try !row(SQLiteRow(stmt: stmt)) { return }
        }
    }

    /// The first column of the first row, as an integer (0 when there is no row).
    public func scalar(_ sql: String, _ binds: [SQLValue] = []) throws(SQLiteError) -> Int64 {
        var value: Int64 = 0
        try query(sql, binds) { (r) throws(SQLiteError) -> Bool in value = r.int(0); return false }
        return value
    }

    func prepared(_ sql: String, _ binds: [SQLValue]) throws(SQLiteError) -> OpaquePointer {
        let stmt: OpaquePointer
        if let cached = cache.byText[sql] {
            stmt = cached
        } else {
            var fresh: OpaquePointer?
            let rc = sqlite3_prepare_v3(db, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &fresh, nil)
            guard rc == SQLITE_OK, let fresh else { throw SQLiteError(rc, db, function: "sqlite3_prepare_v3", path: path, sql: sql) }
            cache.byText[sql] = fresh
            stmt = fresh
        }
        sqlite3_clear_bindings(stmt)
        for (i, value) in binds.enumerated() {
            let index = Int32(i + 1)
            let rc: Int32
            switch value {
            case .null: rc = sqlite3_bind_null(stmt, index)
            case .int(let v): rc = sqlite3_bind_int64(stmt, index, v)
            case .double(let v): rc = sqlite3_bind_double(stmt, index, v)
            case .text(let v): rc = sqlite3_bind_text(stmt, index, v, -1, csqlite_transient())
            case .blob(let v): rc = v.withUnsafeBytes { sqlite3_bind_blob(stmt, index, $0.baseAddress, Int32($0.count), csqlite_transient()) }
            }
            guard rc == SQLITE_OK else { throw SQLiteError(rc, db, function: "sqlite3_bind", path: path, sql: sql) }
        }
        return stmt
    }
}

/// The current row of a running query; valid only inside the `query` callback.
public struct SQLiteRow {
    let stmt: OpaquePointer
    public func isNull(_ i: Int32) -> Bool { sqlite3_column_type(stmt, i) == SQLITE_NULL }
    public func int(_ i: Int32) -> Int64 { sqlite3_column_int64(stmt, i) }
    public func double(_ i: Int32) -> Double { sqlite3_column_double(stmt, i) }
    public func text(_ i: Int32) -> String? {
        guard let p = sqlite3_column_text(stmt, i) else { return nil }
        return String(cString: p)
    }
    public func blob(_ i: Int32) -> [UInt8] {
        let n = Int(sqlite3_column_bytes(stmt, i))
        guard n > 0, let p = sqlite3_column_blob(stmt, i) else { return [] }
        return Array(UnsafeRawBufferPointer(start: p, count: n))
    }
    /// A blob as `Data`, copied once (an anchor entry can be megabytes).
    public func data(_ i: Int32) -> Data {
        let n = Int(sqlite3_column_bytes(stmt, i))
        guard n > 0, let p = sqlite3_column_blob(stmt, i) else { return Data() }
        return Data(bytes: p, count: n)
    }
}
