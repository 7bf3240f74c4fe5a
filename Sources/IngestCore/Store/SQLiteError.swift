import CSQLite

/// Thrown by the state store and the local node. `description` is one line naming the
/// C call, the file, sqlite's message and the statement.
public struct SQLiteError: Error, Sendable, CustomStringConvertible {
    public var code: Int32
    public var message: String
    public var function: String
    public var path: String
    public var sql: String?

    init(_ code: Int32, _ db: OpaquePointer?, function: String, path: String, sql: String? = nil) {
        self.code = code
        self.message = db.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(code))
        self.function = function; self.path = path; self.sql = sql
    }

    static func closed(path: String) -> SQLiteError {
        var e = SQLiteError(SQLITE_MISUSE, nil, function: "use after close", path: path)
        e.message = "the database is closed"
        return e
    }

    public var isCorrupt: Bool { code & 0xFF == SQLITE_CORRUPT || code & 0xFF == SQLITE_NOTADB }
    public var isDiskFull: Bool { code & 0xFF == SQLITE_FULL }

    public var description: String {
        if isCorrupt { return "\(path): the state database is damaged (\(message)); move it aside and run again, or run `resync`" }
        if isDiskFull { return "\(path): the disk is full (\(message)); nothing queued was lost, free some space and run again" }
        return "\(path): \(function) failed: \(message) (\(code))" + (sql.map { " in `\($0.prefix(120))`" } ?? "")
    }
}
