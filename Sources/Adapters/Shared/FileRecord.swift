import FoundationEssentials
import IngestCore
#if canImport(Glibc)
import Glibc
#endif

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
    var items: [ItemKey: String]

    init(stamp: FileStamp, hash: String, extra: String = "-", items: [ItemKey: String] = [:]) {
        self.stamp = stamp; self.hash = hash; self.extra = extra; self.items = items
    }

    /// Decoded from the UTF-8 bytes, not Characters: an unchanged run decodes every file's record.
    init?(_ data: Data) {
        let lines = [UInt8](data).split(separator: 0x0A)
        guard let head = lines.first?.split(separator: 0x09, omittingEmptySubsequences: false), head.count == 6,
              head[0].elementsEqual("v1".utf8), let stamp = FileStamp(size: head[1], mtime: head[2], inode: head[3]) else { return nil }
        self.init(stamp: stamp, hash: FileRecord.text(head[4]), extra: FileRecord.text(head[5]))
        for line in lines.dropFirst() {
            let f = line.split(separator: 0x09, omittingEmptySubsequences: false)
            guard f.count == 3, let endpoint = Endpoint(rawValue: FileRecord.text(f[0])) else { continue }
            items[ItemKey(endpoint: endpoint, key: AnchorText.unescape(FileRecord.text(f[1])))] = f[2].elementsEqual("-".utf8) ? "" : FileRecord.text(f[2])
        }
    }

    private static func text(_ bytes: ArraySlice<UInt8>) -> String { String(decoding: bytes, as: UTF8.self) }

    var encoded: Data {
        var out = Array("v1\t".utf8)
        stamp.write(into: &out)
        out.append(contentsOf: "\t\(hash)\t\(extra)\n".utf8)
        // One line per item, sorted so the same items give the same bytes: by endpoint, then key
        // (bytewise), as byte ranges of one buffer, which a file of 50 000 keys sorts quickly.
        var lines: [UInt8] = []
        lines.reserveCapacity(items.count * 64)
        var spans: [Range<Int>] = []
        spans.reserveCapacity(items.count)
        for (id, version) in items {
            let start = lines.count
            lines.append(contentsOf: id.endpoint.rawValue.utf8); lines.append(0x09)
            lines.append(contentsOf: AnchorText.escape(id.key).utf8); lines.append(0x09)
            lines.append(contentsOf: (version.isEmpty ? "-" : version).utf8); lines.append(0x0A)
            spans.append(start..<lines.count)
        }
        if spans.count > 1 { lines.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return }
            spans.sort { a, b in
                let order = memcmp(base + a.lowerBound, base + b.lowerBound, min(a.count, b.count))
                return order != 0 ? order < 0 : a.count < b.count
            }
        } }
        var data = Data(capacity: out.count + lines.count)
        data.append(contentsOf: out)
        lines.withUnsafeBufferPointer { buffer in for span in spans { data.append(UnsafeBufferPointer(rebasing: buffer[span])) } }
        return data
    }
}
