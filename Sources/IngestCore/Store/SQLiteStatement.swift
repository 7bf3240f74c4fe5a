import CSQLite
import FoundationEssentials

/// One cached statement, bound in place: no `[SQLValue]` array, no SQL text to build and look
/// up per use, and blobs read where they lie instead of copied (see `step(blobs:in:)`).
public struct SQLiteStatement: ~Copyable {
    let stmt: OpaquePointer
    let db: OpaquePointer
    let path: String
    let sql: String

    public func bind(_ index: Int32, _ value: Int64) throws(SQLiteError) {
        try check(sqlite3_bind_int64(stmt, index, value))
    }

    public func bind(_ index: Int32, _ value: Double) throws(SQLiteError) {
        try check(sqlite3_bind_double(stmt, index, value))
    }

    public func bind(_ index: Int32, text: String) throws(SQLiteError) {
        try check(sqlite3_bind_text(stmt, index, text, -1, csqlite_transient()))
    }

    public func bindNull(_ index: Int32) throws(SQLiteError) {
        try check(sqlite3_bind_null(stmt, index))
    }

    /// Runs the statement once with `blobs` bound in place: each names a parameter and its bytes'
    /// range in `bytes`, which SQLite reads without a copy (and forgets after the step).
    /// Returns the number of rows changed.
    @discardableResult
    public func step(blobs: [(index: Int32, range: Range<Int>)], in bytes: some ContiguousBytes) throws(SQLiteError) -> Int {
        let rc = bytes.withUnsafeBytes { (all: UnsafeRawBufferPointer) -> Int32 in
            // A null pointer binds NULL, not an empty blob: empty ranges point at a byte of their own.
            let empty: UInt8 = 0
            return withUnsafePointer(to: empty) { none -> Int32 in
                for blob in blobs {
                    let start = blob.range.isEmpty ? UnsafeRawPointer(none) : all.baseAddress! + blob.range.lowerBound
                    let rc = sqlite3_bind_blob(stmt, blob.index, start, Int32(blob.range.count), nil)
                    guard rc == SQLITE_OK else { sqlite3_clear_bindings(stmt); return rc }
                }
                defer { sqlite3_reset(stmt); sqlite3_clear_bindings(stmt) }
                return sqlite3_step(stmt)
            }
        }
        guard rc == SQLITE_DONE || rc == SQLITE_ROW else { throw SQLiteError(rc, db, function: "sqlite3_step", path: path, sql: sql) }
        return Int(sqlite3_changes(db))
    }

    private func check(_ rc: Int32) throws(SQLiteError) {
        guard rc == SQLITE_OK else { throw SQLiteError(rc, db, function: "sqlite3_bind", path: path, sql: sql) }
    }
}

extension SQLiteConnection {
    /// Lends `sql`'s cached statement, its bindings cleared, to `body`.
    public func withStatement<R>(_ sql: String, _ body: (borrowing SQLiteStatement) throws(SQLiteError) -> R) throws(SQLiteError) -> R {
        let statement = SQLiteStatement(stmt: try prepared(sql, []), db: db, path: path, sql: sql)
        return try body(statement)
    }
}
