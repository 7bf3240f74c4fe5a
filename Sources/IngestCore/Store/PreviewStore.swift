import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// A throwaway state store for `run --dry-run`: the anchors and records of the adapters to scan,
/// copied from the real store, which is only read. A dry run then writes and reads its changes
/// exactly as `run` would, in bounded memory, and nothing in the state folder changes. The
/// scratch folder goes when this does.
public final class PreviewStore: Sendable {
    public let store: StateStore
    private let folder: String

    /// - Parameter adapters: instance names, and their record spaces (nil for none).
    public init(copying paths: Paths, adapters: [(name: String, space: String?)]) throws(StoreError) {
        var template = Array((FileSystem.environment("TMPDIR") ?? "/tmp").appendingPath("hearthloom-preview-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else {
            throw StoreError.fileSystem(FileSystemError(path: String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self),
                                                        errno: errno, operation: "create a scratch folder"))
        }
        folder = String(cString: made)
        do {
            store = try StateStore(throwawayAt: folder.appendingPath("preview.db"))
            if FileSystem.exists(paths.stateDatabase) { try PreviewStore.copy(adapters, from: paths.stateDatabase, into: store) }
        } catch {
            PreviewStore.remove(folder)
            throw error
        }
    }

    deinit {
        store.db.close()
        PreviewStore.remove(folder)
    }

    private static func copy(_ adapters: [(name: String, space: String?)], from database: String, into store: StateStore) throws(StoreError) {
        try store.write { (c) throws(SQLiteError) in
            // Read-only: attaching must not create or change a file of the real store.
            try c.run("ATTACH DATABASE ? AS base", [.text("file:" + PreviewStore.uriPath(database) + "?mode=ro")])
            for adapter in adapters {
                try c.run("INSERT INTO anchors SELECT * FROM base.anchors WHERE adapter = ?", [.text(adapter.name)])
                guard let space = adapter.space else { continue }
                try c.run("INSERT OR IGNORE INTO records SELECT * FROM base.records WHERE space = ?", [.text(space)])
                try c.run("INSERT OR IGNORE INTO record_groups SELECT * FROM base.record_groups WHERE space = ?", [.text(space)])
            }
        }
        try store.read { (c) throws(SQLiteError) in try c.execute("DETACH DATABASE base") }
    }

    /// `path` with the characters a URI gives meaning to escaped.
    private static func uriPath(_ path: String) -> String {
        var out = ""
        for scalar in path.unicodeScalars {
            switch scalar {
            case "%": out += "%25"
            case "?": out += "%3F"
            case "#": out += "%23"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    private static func remove(_ folder: String) {
        for name in ["preview.db", "preview.db-journal"] { unlink(folder.appendingPath(name)) }
        rmdir(folder)
    }
}
