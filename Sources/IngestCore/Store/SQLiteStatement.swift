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

    /// Binds `text`'s UTF-8 in place (SQLite copies it): passing the String itself as a C string
    /// would copy a short or non-native one to the heap first, for each of the items queued.
    public func bind(_ index: Int32, text: String) throws(SQLiteError) {
        var text = text
        let rc = text.withUTF8 { utf8 in
            // A null pointer binds NULL, not an empty text.
            utf8.isEmpty ? sqlite3_bind_text(stmt, index, "", 0, csqlite_transient())
                         : sqlite3_bind_text(stmt, index, UnsafeRawPointer(utf8.baseAddress!).assumingMemoryBound(to: CChar.self), Int32(utf8.count), csqlite_transient())
        }
        try check(rc)
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

/// A multi-row `INSERT … VALUES`: parameters `?1 … ?shared` are common to every row, then each
/// row has `perRow` of its own. Rows share a statement's overhead (step, reset), which for small
/// rows costs about as much as the row itself. The text for n rows is built the first time it is
/// asked for (the connection caches the prepared statement by it), so a one-row insert, such as a
/// `capture`'s, never pays for the 32-row text.
public final class MultiRowInsert: Sendable {
    /// One value of a row: a shared parameter, the row's next own parameter, or SQL as written.
    public enum Value: Sendable {
        case shared(Int32)
        case own
        case sql(String)
    }

    /// The most rows one statement takes.
    public static let maxRows = 32

    public let shared: Int32
    public let perRow: Int32
    private let head: String
    private let row: [Value]
    private let tail: String
    private let texts = Locked<[String?]>(Array(repeating: nil, count: MultiRowInsert.maxRows))

    /// `head` ends with `VALUES`; `tail` (such as an `ON CONFLICT` clause) follows the rows.
    public init(_ head: String, shared: Int32, row: [Value], tail: String = "") {
        self.head = head; self.shared = shared; self.row = row; self.tail = tail
        perRow = Int32(row.count { if case .own = $0 { true } else { false } })
    }

    /// The parameter index of row `row`'s first own parameter; the next ones follow it.
    public func firstParameter(ofRow row: Int) -> Int32 { shared + 1 + perRow * Int32(row) }

    /// The text of the insert of `rows` rows (1 … `maxRows`).
    public func sql(rows: Int) -> String {
        if let built = texts.withLock({ $0[rows - 1] }) { return built }
        let built = head + " " + (0..<rows).map(rowText).joined(separator: ", ") + (tail.isEmpty ? "" : " " + tail)
        texts.withLock { $0[rows - 1] = built }
        return built
    }

    private func rowText(_ n: Int) -> String {
        var next = firstParameter(ofRow: n)
        let values = row.map { value -> String in
            switch value {
            case .shared(let index): return "?\(index)"
            case .own: defer { next += 1 }; return "?\(next)"
            case .sql(let text): return text
            }
        }
        return "(" + values.joined(separator: ", ") + ")"
    }
}

/// Blobs laid end to end in one buffer, each with the parameter it binds: a statement reads them
/// in place (``SQLiteStatement/step(_:)``), no copy per blob.
public struct PackedBlobs {
    private var bytes: [UInt8] = []
    private var blobs: [(index: Int32, range: Range<Int>)] = []

    public init() {}

    public mutating func append(_ index: Int32, _ value: [UInt8]) {
        blobs.append((index, bytes.count ..< bytes.count + value.count))
        bytes += value
    }

    public mutating func removeAll() {
        bytes.removeAll(keepingCapacity: true); blobs.removeAll(keepingCapacity: true)
    }

    fileprivate func step(_ statement: borrowing SQLiteStatement) throws(SQLiteError) -> Int {
        try statement.step(blobs: blobs, in: bytes)
    }
}

extension SQLiteStatement {
    /// Runs the statement once with `packed`'s blobs bound in place; returns the rows changed.
    @discardableResult
    public func step(_ packed: borrowing PackedBlobs) throws(SQLiteError) -> Int { try packed.step(self) }
}

extension SQLiteConnection {
    /// Inserts `rows` with `insert`, in statements of up to ``MultiRowInsert/maxRows`` rows:
    /// `shared` binds the common parameters of each statement, `bind` one row's own from its
    /// first parameter on (blobs into the pack). Returns the number of rows changed.
    @discardableResult
    public func insert<Rows: Collection>(
        _ rows: Rows, with insert: MultiRowInsert,
        shared: (borrowing SQLiteStatement) throws(SQLiteError) -> Void,
        bind: (borrowing SQLiteStatement, _ first: Int32, Rows.Element, inout PackedBlobs) throws(SQLiteError) -> Void
    ) throws(SQLiteError) -> Int {
        var packed = PackedBlobs()
        var changed = 0
        var start = rows.startIndex
        while start != rows.endIndex {
            let end = rows.index(start, offsetBy: MultiRowInsert.maxRows, limitedBy: rows.endIndex) ?? rows.endIndex
            let chunk = rows[start..<end]
            changed += try withStatement(insert.sql(rows: chunk.count)) { (statement) throws(SQLiteError) -> Int in
                try shared(statement)
                packed.removeAll()
                for (n, row) in chunk.enumerated() { try bind(statement, insert.firstParameter(ofRow: n), row, &packed) }
                return try statement.step(packed)
            }
            start = end
        }
        return changed
    }
}
