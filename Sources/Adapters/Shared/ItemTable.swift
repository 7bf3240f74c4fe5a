import FoundationEssentials
import IngestCore
#if canImport(Glibc)
import Glibc
#endif

/// The endpoint, key and version of every item one file gave (``FileRecord``), kept as the
/// record's own text: one `endpoint\tkey\tversion\n` line per item (key escaped as in
/// ``AnchorText``, `-` for no version) in one buffer, in the order they came, and where each line
/// is in bytewise order. A calendar of 50 000 occurrences so holds its lines' bytes, not a
/// dictionary of strings, and writes its record by copying lines. A key is found by binary
/// search on its line's `endpoint\tkey\t`.
struct ItemTable: Equatable, Sendable, ExpressibleByDictionaryLiteral {
    /// The lines (and those of ids given again, not in `sorted`).
    private var bytes: [UInt8] = []
    /// Each id's line in `bytes`, in bytewise order.
    private var sorted: [Range<Int32>] = []

    init() {}

    init(dictionaryLiteral elements: (ItemKey, String)...) {
        var builder = Builder()
        for (id, version) in elements { builder.set(id, version: version) }
        self = builder.table()
    }

    /// The item lines of a stored record, in any order: sorted again if need be; of an id given
    /// twice the later line counts, as it did when records were read into a dictionary.
    init(lines: some Sequence<ArraySlice<UInt8>>) {
        var builder = Builder()
        for line in lines {
            let f = line.split(separator: 0x09, maxSplits: 2, omittingEmptySubsequences: false)
            guard f.count == 3, !f[2].contains(0x09), Endpoint(rawValue: String(decoding: f[0], as: UTF8.self)) != nil else { continue }
            builder.append(line: line, idLength: f[0].count + f[1].count + 2)
        }
        self = builder.table()
    }

    static func == (a: ItemTable, b: ItemTable) -> Bool {
        a.count == b.count && zip(a.sorted, b.sorted).allSatisfy { a.bytes[Int($0.lowerBound)..<Int($0.upperBound)] == b.bytes[Int($1.lowerBound)..<Int($1.upperBound)] }
    }

    var count: Int { sorted.count }
    var isEmpty: Bool { sorted.isEmpty }

    /// The lines in order: the record's text after its head line.
    func write(into data: inout Data) {
        data.reserveCapacity(data.count + sorted.reduce(0) { $0 + $1.count })
        bytes.withUnsafeBufferPointer { buffer in
            for line in sorted { data.append(UnsafeBufferPointer(rebasing: buffer[Int(line.lowerBound)..<Int(line.upperBound)])) }
        }
    }

    /// The version `id` went out with (`""` for none); nil when the file did not give it.
    func version(of id: ItemKey) -> String? {
        let probe = ItemTable.idBytes(id)
        guard let i = lowerBound(probe), startsWith(probe, line: i) else { return nil }
        let line = self.line(i)
        let version = bytes[line.lowerBound + probe.count..<line.upperBound - 1]
        return version.elementsEqual("-".utf8) ? "" : String(decoding: version, as: UTF8.self)
    }

    func contains(_ id: ItemKey) -> Bool {
        let probe = ItemTable.idBytes(id)
        return lowerBound(probe).map { startsWith(probe, line: $0) } ?? false
    }

    /// Every id, in the table's order.
    var keys: [ItemKey] { (0..<count).map(key(at:)) }

    /// The ids of this table that `other` does not hold, walking both in order.
    func keys(notIn other: ItemTable) -> [ItemKey] {
        var out: [ItemKey] = []
        var j = 0
        for i in 0..<count {
            let id = idRange(i)
            var order = 1
            while j < other.count {
                order = ItemTable.compare(bytes[id], other.bytes[other.idRange(j)])
                if order <= 0 { break }
                j += 1
            }
            if order != 0 { out.append(key(at: i)) }
        }
        return out
    }

    // MARK: - Lines

    private func line(_ i: Int) -> Range<Int> { Int(sorted[i].lowerBound)..<Int(sorted[i].upperBound) }

    /// `endpoint\tkey\t` of line `i`.
    private func idRange(_ i: Int) -> Range<Int> {
        let line = line(i)
        let firstTab = bytes[line].firstIndex(of: 0x09)!
        return line.lowerBound..<(bytes[(firstTab + 1)..<line.upperBound].firstIndex(of: 0x09)! + 1)
    }

    private func key(at i: Int) -> ItemKey {
        let id = bytes[idRange(i)].dropLast()
        let tab = id.firstIndex(of: 0x09)!
        return ItemKey(endpoint: Endpoint(rawValue: String(decoding: id[..<tab], as: UTF8.self))!,
                       key: AnchorText.unescape(String(decoding: id[(tab + 1)...], as: UTF8.self)))
    }

    /// The first line not below `probe`; nil when every line is.
    private func lowerBound(_ probe: [UInt8]) -> Int? {
        var low = 0, high = count
        while low < high {
            let middle = (low + high) / 2
            if ItemTable.compare(bytes[line(middle)], probe[...]) < 0 { low = middle + 1 } else { high = middle }
        }
        return low < count ? low : nil
    }

    private func startsWith(_ probe: [UInt8], line i: Int) -> Bool {
        let line = line(i)
        return line.count >= probe.count && bytes[line.lowerBound..<line.lowerBound + probe.count].elementsEqual(probe)
    }

    /// `endpoint\tescaped key\t`: what a line of `id` starts with.
    private static func idBytes(_ id: ItemKey) -> [UInt8] {
        var out: [UInt8] = []
        appendID(id, to: &out)
        return out
    }

    private static func appendID(_ id: ItemKey, to out: inout [UInt8]) {
        out.append(contentsOf: id.endpoint.rawValue.utf8)
        out.append(0x09); out.append(contentsOf: AnchorText.escape(id.key).utf8); out.append(0x09)
    }

    /// Bytewise order, a prefix first.
    fileprivate static func compare(_ a: ArraySlice<UInt8>, _ b: ArraySlice<UInt8>) -> Int {
        let order = a.withUnsafeBufferPointer { a in b.withUnsafeBufferPointer { b in
            memcmp(a.baseAddress!, b.baseAddress!, min(a.count, b.count))
        } }
        return order != 0 ? Int(order) : a.count - b.count
    }

    // MARK: - Building

    /// A table made one item at a time, in any order; `table()` sorts it.
    struct Builder {
        private var bytes: [UInt8] = []
        /// Per id: its line in `bytes`, and how long its `endpoint\tkey\t` is.
        private var lines: [(range: Range<Int32>, idLength: Int32)] = []
        /// Open addressing by the hash of an id, to find an id given again: a line's index + 1 at
        /// the first free slot from its hash on, 0 for a free slot; at most half the slots are
        /// used. A slot is one `Int32`, far smaller than a dictionary's entry per line.
        private var slots: [Int32]

        /// Items expected: room for their lines is made once the first lines tell how long they are.
        private let capacity: Int

        init(capacity: Int = 0) {
            self.capacity = capacity
            lines.reserveCapacity(capacity)
            slots = Array(repeating: 0, count: Builder.slotCount(for: capacity))
        }

        /// Adds `id`, or gives it this version if it is there; true when it was not there.
        @discardableResult
        mutating func set(_ id: ItemKey, version: String) -> Bool { add(id, version: version, replacing: true) }

        /// Adds `id` unless it is there; true when it was not.
        @discardableResult
        mutating func insert(_ id: ItemKey, version: String) -> Bool { add(id, version: version, replacing: false) }

        private mutating func add(_ id: ItemKey, version: String, replacing: Bool) -> Bool {
            let start = bytes.count
            ItemTable.appendID(id, to: &bytes)
            let idLength = bytes.count - start
            let (known, slot) = find(idAt: start, length: idLength)
            if let known {
                if replacing {
                    bytes.append(contentsOf: (version.isEmpty ? "-" : version).utf8); bytes.append(0x0A)
                    lines[known].range = Int32(start)..<Int32(bytes.count)
                } else {
                    bytes.removeSubrange(start...)
                }
                return false
            }
            bytes.append(contentsOf: (version.isEmpty ? "-" : version).utf8); bytes.append(0x0A)
            remember(Int32(start)..<Int32(bytes.count), idLength: idLength, slot: slot)
            return true
        }

        /// A stored line whose id is `endpoint\tkey\t` of its first `idLength` bytes.
        fileprivate mutating func append(line: ArraySlice<UInt8>, idLength: Int) {
            let start = bytes.count
            bytes.append(contentsOf: line)
            if line.last != 0x0A { bytes.append(0x0A) }
            let range = Int32(start)..<Int32(bytes.count)
            let (known, slot) = find(idAt: start, length: idLength)
            if let known { lines[known].range = range } else { remember(range, idLength: idLength, slot: slot) }
        }

        /// Keeps a new line, `slot` the free slot `find` gave for its id.
        private mutating func remember(_ range: Range<Int32>, idLength: Int, slot: Int) {
            if lines.count == Builder.sampled, capacity > lines.count {
                // Growing by doubling would hold the old and new buffer at once: 10 MB for 50 000 lines.
                bytes.reserveCapacity(bytes.count / Builder.sampled * capacity * 9 / 8)
            }
            lines.append((range, Int32(idLength)))
            slots[slot] = Int32(lines.count)
            if lines.count * 2 > slots.count { rehash(into: slots.count * 2) }
        }

        /// The line whose id is the `length` bytes at `start`, or else the free slot for it.
        private func find(idAt start: Int, length: Int) -> (line: Int?, slot: Int) {
            let mask = slots.count - 1
            var slot = Builder.hash(bytes[start..<start + length]) & mask
            return bytes.withUnsafeBufferPointer { buffer in
                while slots[slot] != 0 {
                    let line = lines[Int(slots[slot]) - 1]
                    if Int(line.idLength) == length, memcmp(buffer.baseAddress! + Int(line.range.lowerBound), buffer.baseAddress! + start, length) == 0 {
                        return (Int(slots[slot]) - 1, slot)
                    }
                    slot = (slot + 1) & mask
                }
                return (nil, slot)
            }
        }

        private mutating func rehash(into count: Int) {
            slots = Array(repeating: 0, count: count)
            for (i, line) in lines.enumerated() {
                var slot = Builder.hash(bytes[Int(line.range.lowerBound)..<Int(line.range.lowerBound) + Int(line.idLength)]) & (count - 1)
                while slots[slot] != 0 { slot = (slot + 1) & (count - 1) }
                slots[slot] = Int32(i + 1)
            }
        }

        /// A power of two at least twice `items`.
        private static func slotCount(for items: Int) -> Int {
            var count = 16
            while count < items * 2 { count *= 2 }
            return count
        }

        private static let sampled = 256

        private static func hash(_ bytes: ArraySlice<UInt8>) -> Int {
            var hasher = Hasher()
            bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
            return hasher.finalize()
        }

        /// The table: the same buffer, its lines put in order.
        consuming func table() -> ItemTable {
            slots = []
            var order = lines.map(\.range)
            lines = []
            bytes.withUnsafeBufferPointer { buffer in
                let base = buffer.baseAddress
                order.sort { a, b in
                    let order = memcmp(base! + Int(a.lowerBound), base! + Int(b.lowerBound), Int(min(a.count, b.count)))
                    return order != 0 ? order < 0 : a.count < b.count
                }
            }
            var table = ItemTable()
            table.bytes = bytes
            table.sorted = order
            return table
        }
    }
}
