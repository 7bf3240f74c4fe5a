import FoundationEssentials
import IngestCore

/// The endpoint and key that name one item, as a ledger remembers which file gave it.
struct ItemKey: Hashable, Sendable {
    var endpoint: Endpoint
    var key: String
}

/// What the anchor remembers of one file an adapter reads whole (tracked files, health exports).
/// Stored as text: `v1\tsize\tmtime\tinode\thash\tnote\n`, then `endpoint\tkey\tversion\n` per item
/// (`-` for none; tabs, newlines and `%` in keys escaped as in ``AnchorText``). `note` is
/// `refreshAfter` as seconds since 1970, or `exportFormat`, or `-`: no adapter keeps both.
///
/// Health records written before the ledger had no newline after the head line; they read the same.
struct FileRecord: Equatable {
    var stamp: FileStamp
    var hash: String
    /// When the same bytes must be parsed again even if unchanged: a calendar whose window
    /// moves with the clock (tracked files). Nil for never.
    var refreshAfter: Date?
    /// The health reader's format the file was read as; nil for a file that is not an export.
    var exportFormat: String?
    /// The version each item went out with (`""` for none).
    var items: ItemTable

    init(stamp: FileStamp, hash: String, refreshAfter: Date? = nil, exportFormat: String? = nil, items: ItemTable = [:]) {
        self.stamp = stamp; self.hash = hash; self.refreshAfter = refreshAfter; self.exportFormat = exportFormat; self.items = items
    }

    /// Decoded from the UTF-8 bytes, not Characters: an unchanged run decodes every file's record.
    init?(_ data: Data) {
        let lines = [UInt8](data).split(separator: 0x0A)
        guard let head = lines.first?.split(separator: 0x09, omittingEmptySubsequences: false), head.count == 6,
              head[0].elementsEqual("v1".utf8), let stamp = FileStamp(size: head[1], mtime: head[2], inode: head[3]) else { return nil }
        self.init(stamp: stamp, hash: FileRecord.text(head[4]), items: ItemTable(lines: lines.dropFirst()))
        // A refresh time is a number and a format a name, so the field says which it holds.
        let note = FileRecord.text(head[5])
        if let seconds = Double(note) {
            refreshAfter = Date(timeIntervalSince1970: seconds)
        } else if note != "-" {
            exportFormat = note
        }
    }

    private static func text(_ bytes: ArraySlice<UInt8>) -> String { String(decoding: bytes, as: UTF8.self) }

    /// The head line's last field.
    private var note: String {
        if let refreshAfter { return String(refreshAfter.timeIntervalSince1970) }
        return exportFormat ?? "-"
    }

    /// The head line, then the item lines as ``ItemTable`` keeps them: sorted, so the same items give the same bytes.
    var encoded: Data {
        var head = Array("v1\t".utf8)
        stamp.write(into: &head)
        head.append(contentsOf: "\t\(hash)\t\(note)\n".utf8)
        var data = Data(head)
        items.write(into: &data)
        return data
    }
}
