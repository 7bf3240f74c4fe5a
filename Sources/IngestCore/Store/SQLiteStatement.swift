import CSQLite

/// One cached statement stepped once per row with binds that change between steps. Per row it
/// costs what SQLite's own step does: no `[SQLValue]` array, no SQL text to build and look up,
/// and a bind that stays the same over a run of rows (the space and group of a run of records)
/// is bound once, since a reset keeps bindings.
public struct SQLiteStatement: ~Copyable {
    let stmt: OpaquePointer
    let db: OpaquePointer
    let path: String
    let sql: String

    public func bind(_ index: Int32, _ value: Int64) throws(SQLiteError) {
        try check(sqlite3_bind_int64(stmt, index, value))
    }

    public func bind(_ index: Int32, text: String) throws(SQLiteError) {
        try check(sqlite3_bind_text(stmt, index, text, -1, csqlite_transient()))
    }

    /// The bytes are copied into the statement's own buffer, which a later bind reuses.
    public func bind(_ index: Int32, blob: [UInt8]) throws(SQLiteError) {
        let rc = blob.withUnsafeBytes { sqlite3_bind_blob(stmt, index, $0.baseAddress, Int32($0.count), csqlite_transient()) }
        try check(rc)
    }

    /// Runs the statement once; returns the number of rows it changed.
    @discardableResult
    public func step() throws(SQLiteError) -> Int {
        let rc = sqlite3_step(stmt)
        sqlite3_reset(stmt)
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
