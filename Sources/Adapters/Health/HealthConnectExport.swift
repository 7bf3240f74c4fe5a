import FoundationEssentials
import IngestCore
#if canImport(Glibc)
import Glibc
#endif

/// Android Health Connect's "Export data" (Android 14+): `Health Connect.zip` (named in the
/// phone's language) holding one SQLite database, `health_connect_export.db`, a copy of the
/// module's own `healthconnect.db`. The zip entry is inflated into a private temp file (SQLite
/// needs a file), opened read-only and unlinked at once, so nothing is left behind even if the
/// agent is killed; the tables are then read row by row (``HealthConnectTables``).
///
/// A database that is not Health Connect's, or whose schema lacks what we read, is one warning.
enum HealthConnectExport: HealthReader {
    static let format = "health-connect"
    static let entryName = "health_connect_export.db"
    /// `DatabaseVersions.MIN_SUPPORTED_DB_VERSION` (`DB_VERSION_UUID_BLOB`): older databases are
    /// dropped and recreated by Health Connect itself, so no export of one exists.
    static let oldestVersion: Int64 = 9

    /// A zip whose first entry is the export database, or the database itself once unzipped.
    static func detect(name: String, head: [UInt8]) -> Bool {
        if head.starts(with: AppleHealthExport.zipMagic), head.count >= 30 {
            let length = Int(head[26]) | Int(head[27]) << 8
            return head.count >= 30 + length && Array(head[30..<(30 + length)]) == Array(entryName.utf8)
        }
        return head.starts(with: GadgetbridgeDatabase.magic) && name.lowercased().contains("health_connect")
    }

    static func read(_ input: HealthInput, _ settings: HealthSettings, into out: HealthCollector) throws(FileReadError) {
        let db: SQLiteDatabase
        if (try? FileSystem.readBytes(input.path, limit: 4)) == AppleHealthExport.zipMagic {
            db = try openExtracted(input)
        } else {
            do { db = try SQLiteDatabase(path: input.path, readOnly: true, busyTimeoutMS: GadgetbridgeDatabase.busyTimeoutMS) } catch {
                throw failure(error)
            }
        }
        defer { db.close() }
        let version: Int64
        do { version = try db.withConnection { (c) throws(SQLiteError) -> Int64 in try c.scalar("PRAGMA user_version") } } catch {
            throw failure(error)
        }
        try HealthConnectTables(db: db, version: version, zone: settings.timeZone, out: out).readAll()
    }

    // MARK: - The zip

    /// Inflates the database entry into a 0600 temp file, opens it and unlinks it.
    static func openExtracted(_ input: HealthInput) throws(FileReadError) -> SQLiteDatabase {
        let zip = try ZipEntryStream(try input.stream()) { $0 == entryName || $0.hasSuffix("/" + entryName) }
        let (fd, path) = try TemporaryFile.make(prefix: "hearthloom-health-connect")
        defer { unlink(path) }                            // once open, SQLite holds the file by its descriptor
        do {
            defer { close(fd) }
            try copy(zip, to: fd)
        }
        do {
            return try SQLiteDatabase(path: path, readOnly: true, busyTimeoutMS: GadgetbridgeDatabase.busyTimeoutMS)
        } catch { throw failure(error) }
    }

    /// Writes the entry out in 1 MiB blocks. A database written in WAL mode is marked as a
    /// rollback-journal one in the copy (header bytes 18 and 19), because a read-only WAL
    /// database would need a `-shm` file beside it.
    private static func copy(_ zip: ZipEntryStream, to fd: Int32) throws(FileReadError) {
        let block = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
        defer { block.deallocate() }
        var written = 0
        while true {
            let n = try zip.read(into: block)
            guard n > 0 else { break }
            if written == 0, n > 19, block[18] == 2, block[19] == 2 { block[18] = 1; block[19] = 1 }
            var done = 0
            while done < n {
                let w = write(fd, block.baseAddress! + done, n - done)
                if w < 0 && errno == EINTR { continue }
                guard w > 0 else { throw FileReadError("cannot write the unpacked database: \(String(cString: strerror(errno)))") }
                done += w
            }
            written += n
        }
    }

    /// One line for a database that cannot be read.
    static func failure(_ error: any Error) -> FileReadError {
        guard let e = error as? SQLiteError else { return FileReadError("\(error)") }
        switch e.code & 0xFF {
        case 11, 26: return FileReadError("not a readable Health Connect database (\(e.message))")        // SQLITE_CORRUPT, SQLITE_NOTADB
        default: return FileReadError("cannot read the Health Connect database: \(e.message)")
        }
    }
}
