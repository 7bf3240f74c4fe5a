import FoundationEssentials
import IngestCore

/// What the anchor remembers of one folder: a digest of its listing, and per photo the stat it
/// had and the key it gave. An unchanged re-scan compares one digest per folder and parses nothing.
///
/// Stored as text: `v1 <digest>\n` then `name\tsize\tmtime\tinode\tsidecar\tkey\n` per photo
/// (`-` for none; tabs and newlines in names escaped as `%09` and `%0A`, `%` as `%25`).
struct FolderAnchor {
    struct Record: Equatable {
        var size: Int64
        var mtime: Int64
        var inode: UInt64
        var sidecar: String
        var key: String?
    }

    var digest: String
    var records: [String: Record] = [:]

    static let prefix = "d:"

    /// The digest of a folder's listing: every photo's name and stat, and its sidecar's.
    static func digest(of listing: PhotoFolder, sidecars: [String]) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(listing.photos.count * 48)
        for (entry, sidecar) in zip(listing.photos, sidecars) {
            bytes.append(contentsOf: entry.name.utf8); bytes.append(0)
            withUnsafeBytes(of: (entry.size, entry.mtime, entry.inode)) { bytes.append(contentsOf: $0) }
            bytes.append(contentsOf: sidecar.utf8); bytes.append(0)
        }
        return Digest.sha256Hex(bytes, length: 32)
    }

    /// True when `data` is an anchor with exactly this digest: checked without parsing the rest.
    static func matches(_ data: Data, digest: String) -> Bool {
        data.starts(with: Array("v1 \(digest)\n".utf8))
    }

    init(digest: String) { self.digest = digest }

    init?(_ data: Data) {
        let lines = String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: true)
        guard let head = lines.first, head.hasPrefix("v1 ") else { return nil }
        digest = String(head.dropFirst(3))
        for line in lines.dropFirst() {
            let f = line.split(separator: "\t", omittingEmptySubsequences: false)
            guard f.count == 6, let size = Int64(f[1]), let mtime = Int64(f[2]), let inode = UInt64(f[3]) else { continue }
            records[AnchorText.unescape(String(f[0]))] = Record(size: size, mtime: mtime, inode: inode,
                                                                  sidecar: f[4] == "-" ? "" : String(f[4]), key: f[5] == "-" ? nil : String(f[5]))
        }
    }

    var encoded: Data {
        // Built as bytes: a folder of 500 photos is re-encoded whenever one of them changes.
        var out: [UInt8] = []
        out.reserveCapacity(32 + records.count * 96)
        out.append(contentsOf: "v1 \(digest)\n".utf8)
        for name in records.keys.sorted() {
            let r = records[name]!
            out.append(contentsOf: AnchorText.escape(name).utf8); out.append(0x09)
            FolderAnchor.decimal(r.size, into: &out); out.append(0x09)
            FolderAnchor.decimal(r.mtime, into: &out); out.append(0x09)
            FolderAnchor.decimal(Int64(bitPattern: r.inode), unsigned: true, into: &out); out.append(0x09)
            out.append(contentsOf: (r.sidecar.isEmpty ? "-" : r.sidecar).utf8); out.append(0x09)
            out.append(contentsOf: (r.key ?? "-").utf8); out.append(0x0A)
        }
        return Data(out)
    }

    /// The decimal digits of `value` (read as unsigned with `unsigned`), as `String(value)` writes them.
    static func decimal(_ value: Int64, unsigned: Bool = false, into out: inout [UInt8]) {
        var magnitude = unsigned ? UInt64(bitPattern: value) : value.magnitude
        if !unsigned && value < 0 { out.append(0x2D) }
        var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                     UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var count = 0
        withUnsafeMutableBytes(of: &digits) { buf in
            repeat {
                buf[19 - count] = UInt8(0x30 + magnitude % 10)
                magnitude /= 10
                count += 1
            } while magnitude > 0
            out.append(contentsOf: buf[(20 - count)...])
        }
    }
}
