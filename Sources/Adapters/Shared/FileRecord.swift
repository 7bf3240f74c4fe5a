import FoundationEssentials
import IngestCore

/// The endpoint and key that name one item, as a ledger remembers which file gave it.
struct ItemKey: Hashable, Sendable {
    var endpoint: Endpoint
    var key: String
}

/// What the anchor remembers of one file an adapter reads whole (tracked files, health exports).
/// Stored as text: `v1\tsize\tmtime\tinode\thash\textra\n`, then `endpoint\tkey\tversion\n` per item
/// (`-` for none; tabs, newlines and `%` in keys escaped as in ``AnchorText``).
///
/// Health records written before the ledger had no newline after the head line; they read the same.
struct FileRecord: Equatable {
    var stamp: FileStamp
    var hash: String
    /// The adapter's own field: a calendar's refresh time, a health export's format; `-` for none.
    var extra: String
    /// The version each item went out with (`""` for none).
    var items: ItemTable

    init(stamp: FileStamp, hash: String, extra: String = "-", items: ItemTable = [:]) {
        self.stamp = stamp; self.hash = hash; self.extra = extra; self.items = items
    }

    /// Decoded from the UTF-8 bytes, not Characters: an unchanged run decodes every file's record.
    init?(_ data: Data) {
        let lines = [UInt8](data).split(separator: 0x0A)
        guard let head = lines.first?.split(separator: 0x09, omittingEmptySubsequences: false), head.count == 6,
              head[0].elementsEqual("v1".utf8), let stamp = FileStamp(size: head[1], mtime: head[2], inode: head[3]) else { return nil }
        self.init(stamp: stamp, hash: FileRecord.text(head[4]), extra: FileRecord.text(head[5]), items: ItemTable(lines: lines.dropFirst()))
    }

    private static func text(_ bytes: ArraySlice<UInt8>) -> String { String(decoding: bytes, as: UTF8.self) }

    /// The head line, then the item lines as ``ItemTable`` keeps them: sorted, so the same items give the same bytes.
    var encoded: Data {
        var head = Array("v1\t".utf8)
        stamp.write(into: &head)
        head.append(contentsOf: "\t\(hash)\t\(extra)\n".utf8)
        var data = Data(head)
        items.write(into: &data)
        return data
    }
}
