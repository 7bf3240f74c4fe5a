import CSQLite
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

extension SQLiteDatabase {
    /// Makes the database at `path`, when there is none, whole and at once: `build` writes its
    /// schema into a scratch file (no journal, no fsync), which is switched to WAL, fsynced and
    /// linked into place, and the folder fsynced: two fsyncs, where creating it in place would
    /// fsync the switch to WAL through a rollback journal, then the schema's first WAL commit.
    /// `path` never holds a half-made database: it is absent or complete. A process that finds
    /// it made first (by another process, or by an older agent) drops its scratch file and the
    /// opener's usual path sees the database as it is. An existing database is not touched.
    static func createIfAbsent(_ path: String, _ build: (SQLiteDatabase) throws(SQLiteError) -> Void) throws(SQLiteError) {
        guard !FileSystem.exists(path) else { return }
        let scratch = path + ".new-\(getpid())"
        for leftover in ["", "-journal", "-wal", "-shm"] { unlink(scratch + leftover) }
        defer { unlink(scratch) }
        do {
            let db = try SQLiteDatabase(path: scratch, throwaway: true)
            defer { db.close() }
            try build(db)
            try db.execute("PRAGMA journal_mode=WAL")
        }
        try SQLiteDatabase.syncToDisk(scratch, flags: O_RDONLY)
        guard link(scratch, path) == 0 else {
            if errno == EEXIST { return }
            throw SQLiteError(system: "link", path: path)
        }
        try SQLiteDatabase.syncToDisk(path.deletingLastPathComponent.isEmpty ? "." : path.deletingLastPathComponent, flags: O_RDONLY | O_DIRECTORY)
    }

    private static func syncToDisk(_ path: String, flags: Int32) throws(SQLiteError) {
        let fd = open(path, flags | O_CLOEXEC)
        guard fd >= 0 else { throw SQLiteError(system: "open", path: path) }
        defer { Glibc.close(fd) }
        guard Glibc.fsync(fd) == 0 else { throw SQLiteError(system: "fsync", path: path) }
    }
}

extension SQLiteError {
    /// A failed system call around the database (errno's message).
    init(system function: String, path: String) {
        let code = errno
        self.init(SQLITE_IOERR, nil, function: function, path: path)
        message = String(cString: strerror(code))
    }
}
