import FoundationEssentials
import IngestCore
#if canImport(Glibc)
import Glibc
#endif

/// A record as ``HealthSampleSpool`` lays it out: its shelf, the byte
/// lengths of group, key and value (LEB128), then those bytes. Records compare as the store's
/// primary key does (shelf, then group and key bytewise, a shorter prefix first).
enum PackedRecord {
    /// Where a packed record's parts lie in the bytes it was read from.
    struct Fields {
        var shelf: UInt8
        var start: Int
        var group: Range<Int>
        var key: Range<Int>
        var value: Range<Int>
        var end: Int { value.upperBound }
    }

    static func append(_ record: StateRecord, to bytes: inout [UInt8]) {
        var group = record.group
        group.withUTF8 { name in
            bytes.append(record.shelf)
            varint(name.count, to: &bytes); varint(record.key.count, to: &bytes); varint(record.value.count, to: &bytes)
            bytes.append(contentsOf: name)
        }
        bytes.append(contentsOf: record.key)
        bytes.append(contentsOf: record.value)
    }

    /// The bytes `append` adds for `record`.
    static func size(_ record: StateRecord) -> Int {
        let group = record.group.utf8.count, key = record.key.count, value = record.value.count
        return 1 + varintSize(group) + varintSize(key) + varintSize(value) + group + key + value
    }

    /// The record at `start`, or nil when it does not end before `limit` (the rest is not read yet).
    static func fields(_ bytes: UnsafeRawBufferPointer, at start: Int, limit: Int) -> Fields? {
        guard start < limit else { return nil }
        var i = start + 1
        guard let group = varint(bytes, &i, limit), let key = varint(bytes, &i, limit), let value = varint(bytes, &i, limit),
              i + group + key + value <= limit else { return nil }
        return Fields(shelf: bytes[start], start: start, group: i..<(i + group), key: (i + group)..<(i + group + key),
                      value: (i + group + key)..<(i + group + key + value))
    }

    /// Below zero when `x` (in `a`) sorts before `y` (in `b`), zero for the same shelf, group and key.
    static func compare(_ a: UnsafeRawBufferPointer, _ x: Fields, _ b: UnsafeRawBufferPointer, _ y: Fields) -> Int32 {
        if x.shelf != y.shelf { return x.shelf < y.shelf ? -1 : 1 }
        let group = compare(a, x.group, b, y.group)
        return group != 0 ? group : compare(a, x.key, b, y.key)
    }

    static func stateRecord(_ bytes: UnsafeRawBufferPointer, _ f: Fields) -> StateRecord {
        StateRecord(group: String(decoding: UnsafeRawBufferPointer(rebasing: bytes[f.group]), as: UTF8.self), shelf: f.shelf,
                    key: Array(bytes[f.key]), value: Array(bytes[f.value]))
    }

    private static func compare(_ a: UnsafeRawBufferPointer, _ r: Range<Int>, _ b: UnsafeRawBufferPointer, _ s: Range<Int>) -> Int32 {
        let common = min(r.count, s.count)
        let c = common == 0 ? 0 : memcmp(a.baseAddress! + r.lowerBound, b.baseAddress! + s.lowerBound, common)
        return c != 0 ? c : r.count == s.count ? 0 : r.count < s.count ? -1 : 1
    }

    private static func varint(_ value: Int, to bytes: inout [UInt8]) {
        var v = value
        while v >= 0x80 { bytes.append(UInt8(v & 0x7F) | 0x80); v >>= 7 }
        bytes.append(UInt8(v))
    }

    private static func varintSize(_ value: Int) -> Int { max(1, (Int.bitWidth - value.leadingZeroBitCount + 6) / 7) }

    private static func varint(_ bytes: UnsafeRawBufferPointer, _ i: inout Int, _ limit: Int) -> Int? {
        var value = 0, shift = 0
        while i < limit, shift < 56 {
            let b = bytes[i]
            i += 1
            value |= Int(b & 0x7F) << shift
            if b < 0x80 { return value }
            shift += 7
        }
        return nil
    }
}

/// Records packed one after another in read order, and where each starts.
struct PackedRun: Sendable {
    private(set) var bytes: [UInt8] = []
    private(set) var starts: [Int32] = []

    init(capacity: Int) {
        bytes.reserveCapacity(capacity)
        starts.reserveCapacity(capacity / 64)
    }

    var isEmpty: Bool { starts.isEmpty }

    mutating func append(_ record: StateRecord) {
        starts.append(Int32(bytes.count))
        PackedRecord.append(record, to: &bytes)
    }

    /// The starts in key order; a key packed twice in the order packed.
    func sorted() -> [Int32] {
        bytes.withUnsafeBytes { p in
            starts.map { SortKey(p, at: $0) }.sorted { x, y in x.precedes(y, in: p) }.map(\.start)
        }
    }

    /// A record's first bytes as integers, so that most comparisons in a sort are two or three
    /// integer compares: shelf and group (up to 14 bytes, zero-padded) with its length (15 for
    /// longer ones), then the key's first 8 bytes. Zero padding keeps the bytes' order; on equal
    /// integers the bytes decide.
    private struct SortKey {
        var head: UInt64, group: UInt64, key: UInt64
        var start: Int32

        init(_ p: UnsafeRawBufferPointer, at start: Int32) {
            let f = PackedRecord.fields(p, at: Int(start), limit: p.count)!
            head = UInt64(f.shelf) << 56 | SortKey.bigEndian(p, f.group.lowerBound, f.group.count, 7) >> 8
            group = SortKey.bigEndian(p, f.group.lowerBound + 7, f.group.count - 7, 7) | UInt64(min(f.group.count, 15))
            key = SortKey.bigEndian(p, f.key.lowerBound, f.key.count, 8)
            self.start = start
        }

        func precedes(_ other: SortKey, in p: UnsafeRawBufferPointer) -> Bool {
            if head != other.head { return head < other.head }
            if group != other.group { return group < other.group }
            if group & 0xFF <= 14, key != other.key { return key < other.key }    // the same group: the keys decide
            let c = PackedRecord.compare(p, PackedRecord.fields(p, at: Int(start), limit: p.count)!,
                                         p, PackedRecord.fields(p, at: Int(other.start), limit: p.count)!)
            return c != 0 ? c < 0 : start < other.start
        }

        /// Up to `width` bytes from `at` (fewer when `count` is smaller) in the top bytes of a UInt64.
        private static func bigEndian(_ p: UnsafeRawBufferPointer, _ at: Int, _ count: Int, _ width: Int) -> UInt64 {
            var v: UInt64 = 0
            for i in 0..<max(0, min(count, width)) { v |= UInt64(p[at + i]) << (56 - 8 * i) }
            return v
        }
    }

    /// Writes the records in key order at `offset` of `file`: a run the merge reads back.
    func spill(to file: SpillFile, at offset: Int64) throws(FileReadError) {
        let order = sorted()
        var writer = SpillWriter(file, at: offset)
        bytes.withUnsafeBytes { p in
            for start in order {
                let f = PackedRecord.fields(p, at: Int(start), limit: p.count)!
                writer.append(UnsafeRawBufferPointer(rebasing: p[f.start..<f.end]))
            }
        }
        try writer.finish()
    }
}

/// Reads one sorted run record by record: a spilled run through a window onto the file, the
/// last run from memory.
final class RunCursor {
    private enum Source {
        case memory(order: [Int32])
        case file(SpillFile, end: Int64)
    }
    private let source: Source
    private var window: [UInt8]
    /// Bytes of `window` that hold what was read.
    private var valid: Int
    /// In memory, the next place in `order`; on file, the offset `window`'s bytes reach to.
    private var position: Int64
    private var current: PackedRecord.Fields?

    init(_ run: PackedRun) {
        source = .memory(order: run.sorted())
        window = run.bytes; valid = window.count; position = 0
    }

    init(_ file: SpillFile, _ run: SpilledRun, window size: Int) {
        source = .file(file, end: run.offset + run.length)
        window = [UInt8](repeating: 0, count: size); valid = 0; position = run.offset
    }

    /// Moves to the next record; false past the last.
    func advance() throws(FileReadError) -> Bool {
        switch source {
        case .memory(let order):
            guard position < order.count else { current = nil; return false }
            let start = Int(order[Int(position)])
            position += 1
            current = window.withUnsafeBytes { PackedRecord.fields($0, at: start, limit: valid) }
            return true
        case .file(let file, let end):
            var start = current?.end ?? 0
            while true {
                current = window.withUnsafeBytes { PackedRecord.fields($0, at: start, limit: valid) }
                if current != nil { return true }
                if position == end {
                    guard start == valid else { throw FileReadError("the samples' temporary sort file ends inside a record", transient: true) }
                    return false
                }
                try refill(keeping: start, file, end)
                start = 0
            }
        }
    }

    /// Moves the bytes from `start` to the front of the window and reads more after them.
    private func refill(keeping start: Int, _ file: SpillFile, _ end: Int64) throws(FileReadError) {
        let kept = valid - start
        window.withUnsafeMutableBytes { w in _ = memmove(w.baseAddress!, w.baseAddress! + start, kept) }
        if kept == window.count { window += [UInt8](repeating: 0, count: window.count) }  // a record longer than the window
        let want = Int(min(Int64(window.count - kept), end - position))
        let read = window.withUnsafeMutableBytes { w in file.read(into: UnsafeMutableRawBufferPointer(rebasing: w[kept..<(kept + want)]), at: position) }
        switch read {
        case .success(let n): valid = kept + n; position += Int64(n)
        case .failure(let error): throw error
        }
    }

    /// `body` on the record the cursor is at (there is one after `advance` returned true).
    func withRecord<R>(_ body: (UnsafeRawBufferPointer, PackedRecord.Fields) -> R) -> R {
        window.withUnsafeBytes { body($0, current!) }
    }
}

/// Sorted runs merged into one sequence: a heap of cursors by their records, a key in several
/// runs coming from the earlier run first.
struct RunMerge {
    private let cursors: [RunCursor]
    private var heap: [Int] = []

    init(_ cursors: [RunCursor]) throws(FileReadError) {
        self.cursors = cursors
        for (i, cursor) in cursors.enumerated() {
            if try cursor.advance() { heap.append(i) }
        }
        for i in stride(from: heap.count / 2 - 1, through: 0, by: -1) { siftDown(i) }
    }

    /// The cursor at the least record; nil once every run is done.
    var top: RunCursor? { heap.first.map { cursors[$0] } }

    /// Moves past the least record.
    mutating func pop() throws(FileReadError) {
        if try !cursors[heap[0]].advance() {
            heap.swapAt(0, heap.count - 1)
            heap.removeLast()
        }
        if !heap.isEmpty { siftDown(0) }
    }

    private func less(_ i: Int, _ j: Int) -> Bool {
        let c = cursors[i].withRecord { a, x in cursors[j].withRecord { b, y in PackedRecord.compare(a, x, b, y) } }
        return c != 0 ? c < 0 : i < j
    }

    private mutating func siftDown(_ start: Int) {
        var i = start
        while true {
            let left = 2 * i + 1, right = left + 1
            var least = i
            if left < heap.count, less(heap[left], heap[least]) { least = left }
            if right < heap.count, less(heap[right], heap[least]) { least = right }
            if least == i { return }
            heap.swapAt(i, least)
            i = least
        }
    }
}
