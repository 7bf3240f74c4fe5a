import FoundationEssentials
import IngestCore

/// What the anchor remembers of one folder: a digest of its listing, and per photo the stat it
/// had and the key it gave. An unchanged re-scan compares one digest per folder and parses nothing.
///
/// Stored as text: `v1 <digest>\n` then `name\tsize\tmtime\tinode\tsidecar\tkey\tpairing\n` per
/// photo or video (`-` for none; tabs and newlines in names and identifiers escaped as `%09` and
/// `%0A`, `%` as `%25`). `key` is the item the file holds: none for a Live Photo's movie, whose
/// still holds the pair's. `pairing` is ``LivePhoto/Facts``; a record written before videos were
/// read has none, and its file is read again when its folder changes.
struct FolderAnchor {
    struct Record: Equatable {
        var stamp: FileStamp
        var sidecar: String
        var key: String?
        var pairing: LivePhoto.Facts?
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
            withUnsafeBytes(of: (entry.stamp.size, entry.stamp.mtime, entry.stamp.inode)) { bytes.append(contentsOf: $0) }
            bytes.append(contentsOf: sidecar.utf8); bytes.append(0)
        }
        return Digest.sha256Hex(bytes, length: 32)
    }

    /// True when `data` is an anchor with exactly this digest: checked without parsing the rest.
    static func matches(_ data: Data, digest: String) -> Bool {
        data.starts(with: Array("v1 \(digest)\n".utf8))
    }

    init(digest: String) { self.digest = digest }

    /// Decoded from the UTF-8 bytes: a folder is decoded whenever one of its photos changed.
    init?(_ data: Data) {
        let lines = [UInt8](data).split(separator: 0x0A)
        guard let head = lines.first, head.starts(with: "v1 ".utf8) else { return nil }
        digest = FolderAnchor.text(head.dropFirst(3))
        for line in lines.dropFirst() {
            let f = line.split(separator: 0x09, omittingEmptySubsequences: false)
            guard f.count == 6 || f.count == 7, let stamp = FileStamp(size: f[1], mtime: f[2], inode: f[3]) else { continue }
            let pairing = f.count == 7 ? LivePhoto.Facts(encoded: AnchorText.unescape(FolderAnchor.text(f[6]))) : nil
            records[AnchorText.unescape(FolderAnchor.text(f[0]))] = Record(stamp: stamp, sidecar: FolderAnchor.text(f[4], none: ""),
                                                                          key: f[5].elementsEqual("-".utf8) ? nil : FolderAnchor.text(f[5]),
                                                                          pairing: pairing)
        }
    }

    /// The field as text; `-` stands for `none`.
    private static func text(_ bytes: ArraySlice<UInt8>, none: String? = nil) -> String {
        if let none, bytes.elementsEqual("-".utf8) { return none }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The keys its photos gave, for the file ledger.
    var itemKeys: [ItemKey] { records.values.compactMap { $0.key.map { ItemKey(endpoint: .photos, key: $0) } } }

    var encoded: Data {
        // Built as bytes: a folder of 500 photos is re-encoded whenever one of them changes.
        var out: [UInt8] = []
        out.reserveCapacity(32 + records.count * 96)
        out.append(contentsOf: "v1 ".utf8); out.append(contentsOf: digest.utf8); out.append(0x0A)
        for (name, r) in records.sorted(by: { $0.key < $1.key }) {
            AnchorText.append(name, to: &out); out.append(0x09)
            r.stamp.write(into: &out); out.append(0x09)
            out.append(contentsOf: (r.sidecar.isEmpty ? "-" : r.sidecar).utf8); out.append(0x09)
            out.append(contentsOf: (r.key ?? "-").utf8); out.append(0x09)
            if let pairing = r.pairing { pairing.write(into: &out) } else { out.append(UInt8(ascii: "-")) }
            out.append(0x0A)
        }
        return Data(out)
    }
}
