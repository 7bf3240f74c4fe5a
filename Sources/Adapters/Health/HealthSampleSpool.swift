import FoundationEssentials
import IngestCore

/// Samples that arrive scattered over the store's groups and shelves (a shuffled export) would,
/// stored one chunk at a time, rewrite nearly a page of the store per sample and chunk. Such chunks are spooled into SQLite's private temporary database instead (a file
/// outside the state folder, never fsynced, gone when the connection closes) and handed on at
/// the end of the file sorted by (shelf, group, key), so the store takes them one page after
/// another. SQLite sorts them in bounded memory, spilling to temporary files.
final class HealthSampleSpool {
    private var db: SQLiteDatabase?
    /// Records spooled so far.
    private(set) var count = 0
    /// Per shelf, the latest group this file has reached.
    private var reached = [String?](repeating: nil, count: StateRecord.shelfCount)

    /// Spools `records` when they are scattered, or once an earlier chunk was (a key read twice
    /// must keep its later value); false when they are to be stored as they are.
    func take(_ records: [StateRecord]) throws(HealthReadError) -> Bool {
        if db == nil {
            guard goingBack(records) * 4 > records.count else { return false }
            db = try spooling { () throws(SQLiteError) -> SQLiteDatabase in
                let db = try SQLiteDatabase(path: "", throwaway: true)
                try db.execute("CREATE TABLE spool(shelf INTEGER NOT NULL, grp TEXT NOT NULL, key BLOB NOT NULL, value BLOB NOT NULL)")
                return db
            }
        }
        var rows: [SQLValue] = []
        rows.reserveCapacity(records.count * 4)
        for r in records { rows += [.int(Int64(r.shelf)), .text(r.group), .blob(r.key), .blob(r.value)] }
        try spooling { () throws(SQLiteError) in
            try db!.transaction { (c) throws(SQLiteError) in try c.insertRows("INSERT INTO spool(shelf, grp, key, value)", columns: 4, rows) }
        }
        count += records.count
        return true
    }

    /// Hands on what was spooled in chunks of `size`, in (shelf, group, key) order; a key
    /// spooled twice comes in the order it was read.
    func drain(size: Int, _ body: ([StateRecord]) throws(HealthReadError) -> Void) throws(HealthReadError) {
        guard let db else { return }
        var chunk: [StateRecord] = []
        var failure: HealthReadError?
        try spooling { () throws(SQLiteError) in
            try db.withConnection { (c) throws(SQLiteError) in
                try c.query("SELECT shelf, grp, key, value FROM spool ORDER BY shelf, grp, key, rowid") { r in
                    chunk.append(StateRecord(group: r.text(1) ?? "", shelf: UInt8(truncatingIfNeeded: r.int(0)), key: r.blob(2), value: r.blob(3)))
                    guard chunk.count >= size else { return true }
                    do throws(HealthReadError) { try body(chunk) } catch { failure = error; return false }
                    chunk.removeAll(keepingCapacity: true)
                    return true
                }
            }
        }
        if let failure { throw failure }
        if !chunk.isEmpty { try body(chunk) }
    }

    /// How many of `records` go back to an earlier group of their shelf than this file has
    /// reached: pages written before, to be rewritten. A file read in order (by kind then time,
    /// or by time across kinds) goes back rarely (a change of time zone); a shuffled one for
    /// about every other record.
    private func goingBack(_ records: [StateRecord]) -> Int {
        var back = 0
        var previous: (shelf: UInt8, group: String, back: Bool)?
        for r in records {
            if let p = previous, p.shelf == r.shelf, p.group == r.group { back += p.back ? 1 : 0; continue }
            let shelf = Int(r.shelf)
            let isBack = reached[shelf].map { r.group < $0 } ?? false
            if !isBack { reached[shelf] = r.group }
            back += isBack ? 1 : 0
            previous = (r.shelf, r.group, isBack)
        }
        return back
    }

    private func spooling<R>(_ body: () throws(SQLiteError) -> R) throws(HealthReadError) -> R {
        do { return try body() } catch { throw HealthReadError("cannot sort the samples in a temporary file: \(error)") }
    }
}
