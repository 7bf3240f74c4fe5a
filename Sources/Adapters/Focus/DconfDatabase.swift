import FoundationEssentials
import IngestCore

/// One boolean from the user's dconf database, the GVDB file dconf-service writes
/// (`$XDG_CONFIG_HOME/dconf/user`): how GSettings stores GNOME's settings. Read without GLib: the
/// file is small, replaced whole (a rename) on every write, and dconf-service signals each write
/// on the session bus (`ca.desrt.dconf.Writer.Notify`), so it is simply read again then.
///
/// GVDB layout (little-endian, as dconf writes it): a 24-byte header (`GVariant`, version,
/// options, the root table's start and end), then the root hash table: a word whose low 27 bits
/// count the bloom-filter words, the bucket count, the bloom words, the buckets, and 24-byte items
/// (hash, parent item, key start, key length, type, pad, value start, value end). A key is its
/// item's segment after its parents' (`/` + `org/` + … + `show-banners`); a value of type `v` is a
/// serialized GVariant variant: the value's bytes, a 0, the type string.
enum DconfDatabase {
    /// The user database's path.
    static var userPath: String {
        let env = ProcessInfo.processInfo.environment
        let config = env["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? (env["HOME"] ?? "") + "/.config"
        return config + "/dconf/user"
    }

    static let largest = 16 << 20

    /// The boolean stored at `key`, or nil when the file, the key or a boolean there is missing.
    static func boolean(_ key: String, at path: String = userPath) -> Bool? {
        guard let bytes = try? FileSystem.readBytes(path, limit: largest), bytes.count < largest else { return nil }
        return boolean(key, in: bytes)
    }

    static func boolean(_ key: String, in bytes: [UInt8]) -> Bool? {
        func u32(_ at: Int) -> Int? {
            guard at >= 0, at + 4 <= bytes.count else { return nil }
            return Int(bytes[at]) | Int(bytes[at + 1]) << 8 | Int(bytes[at + 2]) << 16 | Int(bytes[at + 3]) << 24
        }
        guard bytes.starts(with: Array("GVariant".utf8)), let start = u32(16), let end = u32(20), start <= end, end <= bytes.count,
              let bloom = u32(start).map({ $0 & 0x07FF_FFFF }), let buckets = u32(start + 4) else { return nil }
        let itemsStart = start + 8 + 4 * bloom + 4 * buckets
        guard itemsStart <= end else { return nil }
        let count = (end - itemsStart) / 24
        /// An item's own key segment and its parent's index (nil at the root).
        func item(_ i: Int) -> (segment: ArraySlice<UInt8>, parent: Int?, type: UInt8, value: Range<Int>)? {
            let at = itemsStart + 24 * i
            guard let parent = u32(at + 4), let keyStart = u32(at + 8), let keySize = u32(at + 12).map({ $0 & 0xFFFF }),
                  let valueStart = u32(at + 16), let valueEnd = u32(at + 20),
                  keyStart + keySize <= bytes.count, valueStart <= valueEnd, valueEnd <= bytes.count else { return nil }
            return (bytes[keyStart..<(keyStart + keySize)], parent == 0xFFFF_FFFF ? nil : parent, bytes[at + 14], valueStart..<valueEnd)
        }
        let wanted = Array(key.utf8)
        for i in 0..<count {
            guard let leaf = item(i), leaf.type == UInt8(ascii: "v"), wanted.hasSuffix(leaf.segment) else { continue }
            // Walk up the parents, matching the key from its end; a loop ends at the depth limit.
            var rest = wanted.count - leaf.segment.count, parent = leaf.parent, depth = 0
            while rest > 0, let p = parent, p < count, depth < 64, let up = item(p), rest >= up.segment.count,
                  wanted[(rest - up.segment.count)..<rest].elementsEqual(up.segment) {
                rest -= up.segment.count; parent = up.parent; depth += 1
            }
            guard rest == 0, parent == nil else { continue }
            let value = bytes[leaf.value]
            guard value.count == 3, value[value.startIndex + 1] == 0, value.last == UInt8(ascii: "b") else { return nil }
            return value.first != 0
        }
        return nil
    }
}

private extension Array where Element == UInt8 {
    func hasSuffix(_ tail: ArraySlice<UInt8>) -> Bool { count >= tail.count && self[(count - tail.count)...].elementsEqual(tail) }
}
