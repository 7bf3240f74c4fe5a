import FoundationEssentials
import IngestCore

/// A day's samples of one kind, daily-ness and source as one record: a minute-by-minute export
/// stores about ten records a day instead of a few thousand (SQLite's cost is per row far more
/// than per byte). The key is `3, daily, source`; the shelf is the kind's code plus
/// ``shelfOffset`` (the kind's own shelf held the single records of the layout before); the
/// value is the samples' start, end, offset and figures, sorted and each once, packed in
/// about 7 bytes (``Entry``).
///
/// A sample's identity is as before (kind, daily, start, end, offset, source): a pack written
/// again merges into the stored one (``merge``), a sample read again keeping its later value.
enum HealthSamplePack {
    static let keyTag: UInt8 = 3
    /// Packs sit on shelves of their own, so that a store of the older layout shows on its shelves.
    static let shelfOffset: UInt8 = 8

    /// One sample of a pack; the pack's key says the rest.
    struct Entry: Equatable {
        var start: Double, end: Double
        var offset: Int32
        var value: Double
        var low: Double?, high: Double?

        /// The order, and identity, the single records' keys had: start and end (their bits
        /// sign-flipped, as ``StateRecord/orderedKey(_:)``), then the offset's little-endian bytes.
        var order: (UInt64, UInt64, UInt32) { (Self.ordered(start), Self.ordered(end), UInt32(bitPattern: offset).byteSwapped) }

        private static func ordered(_ t: Double) -> UInt64 {
            let bits = t.bitPattern
            return bits & (1 << 63) != 0 ? ~bits : bits | (1 << 63)
        }
    }

    /// `samples` as packs, in the order their packs first came, grouped by the day each counts
    /// toward, or all in `group` (a day packed from records of the older layout stays its day).
    static func records(_ samples: [HealthSample], group: String? = nil) -> [StateRecord] {
        struct ID: Hashable { var day: Int, kind: UInt8, daily: Bool, source: String }
        var place: [ID: Int] = [:]
        var packs: [(id: ID, entries: [Entry])] = []
        for s in samples {
            let id = ID(day: group == nil ? s.dayNumber : 0, kind: HealthSampleCodec.kindCode(s.kind), daily: s.daily, source: s.source)
            let entry = Entry(start: s.start, end: s.end, offset: Int32(clamping: s.offset), value: s.value, low: s.low, high: s.high)
            // Sources take turns within a kind and day: the last few packs are looked at before the table.
            if let at = packs.indices.suffix(4).last(where: { packs[$0].id == id }) { packs[at].entries.append(entry); continue }
            let at = place[id] ?? packs.count
            if at == packs.count { place[id] = at; packs.append((id, [])) }
            packs[at].entries.append(entry)
        }
        return packs.map { pack in
            precondition(Int(pack.id.kind + shelfOffset) < HealthSampleCodec.shelfCount, "kind \(pack.id.kind) has no shelf")
            return StateRecord(group: group ?? HealthTime.dateText(pack.id.day), shelf: pack.id.kind + shelfOffset,
                               key: key(daily: pack.id.daily, source: pack.id.source), value: encode(canonical(pack.entries)))
        }
    }

    static func key(daily: Bool, source: String) -> [UInt8] {
        var key = HealthSampleCodec.Writer()
        key.byte(keyTag); key.byte(daily ? 1 : 0); key.string(source)
        return key.bytes
    }

    /// How the store combines a pack written again with the stored one: their samples, each
    /// once, the written value winning. Any other record (a workout) replaces the stored one.
    static let merge: RecordMerge = { written, stored in
        guard written.key.first == keyTag, let old = decode(stored), let new = decode(written.value) else { return written.value }
        return encode(merged(old, new))
    }

    /// Adjacent packs of one key (a sorted spool hands them on in the order read) as one.
    static func coalesced(_ records: [StateRecord]) -> [StateRecord] {
        var out: [StateRecord] = []
        var i = 0
        while i < records.count {
            var j = i + 1
            while j < records.count, records[j].key.first == keyTag, records[j].shelf == records[i].shelf,
                  records[j].group == records[i].group, records[j].key == records[i].key { j += 1 }
            if j == i + 1 { out.append(records[i]) } else {
                var record = records[i]
                record.value = encode(canonical(records[i..<j].flatMap { decode($0.value) ?? [] }))
                out.append(record)
            }
            i = j
        }
        return out
    }

    // MARK: - Sorting and merging

    /// Sorted by ``Entry/order``, each identity once: the last read of it.
    static func canonical(_ entries: [Entry]) -> [Entry] {
        if zip(entries, entries.dropFirst()).allSatisfy({ $0.order < $1.order }) { return entries }
        let sorted = entries.indices.sorted { a, b in
            let x = entries[a].order, y = entries[b].order
            return x != y ? x < y : a < b
        }
        var out: [Entry] = []
        out.reserveCapacity(entries.count)
        for i in sorted {
            if let previous = out.last, previous.order == entries[i].order { out[out.count - 1] = entries[i] } else { out.append(entries[i]) }
        }
        return out
    }

    /// Two canonical lists as one; on equal identity `new`'s entry.
    static func merged(_ old: [Entry], _ new: [Entry]) -> [Entry] {
        var out: [Entry] = []
        out.reserveCapacity(old.count + new.count)
        var i = 0, j = 0
        while i < old.count || j < new.count {
            if j == new.count { out.append(old[i]); i += 1; continue }
            if i == old.count { out.append(new[j]); j += 1; continue }
            let a = old[i].order, b = new[j].order
            if a < b { out.append(old[i]); i += 1 } else {
                if a == b { i += 1 }
                out.append(new[j]); j += 1
            }
        }
        return out
    }

    // MARK: - Bytes

    private static let format: UInt8 = 1

    /// `format`, then per entry a flags byte (1: low, 2: high, 4: offset differs from the
    /// entry before's, which starts at 0), start from the start before (from 0 first), end from
    /// start, the offset (zigzag varint) when it differs, value, low, high (see ``Numbers``).
    static func encode(_ entries: [Entry]) -> [UInt8] {
        var out = Numbers(capacity: 1 + entries.count * 8)
        out.bytes.append(format)
        var start = 0.0, offset: Int32 = 0
        for e in entries {
            out.bytes.append((e.low != nil ? 1 : 0) | (e.high != nil ? 2 : 0) | (e.offset != offset ? 4 : 0))
            out.number(e.start, from: start)
            out.number(e.end, from: e.start)
            if e.offset != offset { out.varint(UInt64(UInt32(bitPattern: (e.offset << 1) ^ (e.offset >> 31)))) }
            out.number(e.value, from: 0)
            if let low = e.low { out.number(low, from: 0) }
            if let high = e.high { out.number(high, from: 0) }
            start = e.start; offset = e.offset
        }
        return out.bytes
    }

    /// nil for bytes this version did not write.
    static func decode(_ bytes: [UInt8]) -> [Entry]? {
        bytes.withUnsafeBytes { p -> [Entry]? in
            var r = NumberReader(bytes: p)
            guard r.byte() == format else { return nil }
            var out: [Entry] = []
            var start = 0.0, offset: Int32 = 0
            while r.ok && r.at < p.count {
                let flags = r.byte()
                let s = r.number(from: start)
                let end = r.number(from: s)
                if flags & 4 != 0 {
                    let z = UInt32(truncatingIfNeeded: r.varint())
                    offset = Int32(bitPattern: (z >> 1) ^ (0 &- (z & 1)))
                }
                var e = Entry(start: s, end: end, offset: offset, value: r.number(from: 0))
                if flags & 1 != 0 { e.low = r.number(from: 0) }
                if flags & 2 != 0 { e.high = r.number(from: 0) }
                if flags & ~7 != 0 { return nil }
                out.append(e)
                start = s
            }
            return r.ok ? out : nil
        }
    }

    /// A number is `n << 2 | scale` (LEB128) when it is exactly `base + n / (1, 10 or 1000)`
    /// with a whole `n ≥ 0` (steps, a minute later, 65.5 bpm, 4.123 kcal), else `3` and its
    /// 8 bytes. Decoding does the same arithmetic, so the bits come back as they went in.
    private static let scales: [Double] = [1, 10, 1000]

    private struct Numbers {
        var bytes: [UInt8] = []
        init(capacity: Int) { bytes.reserveCapacity(capacity) }

        mutating func number(_ x: Double, from base: Double) {
            for (code, scale) in HealthSamplePack.scales.enumerated() {
                let n = ((x - base) * scale).rounded()
                guard n >= 0, n < 0x1p52 else { break }
                if (base + n / scale).bitPattern == x.bitPattern { varint(UInt64(n) << 2 | UInt64(code)); return }
            }
            varint(3)
            withUnsafeBytes(of: x.bitPattern.littleEndian) { bytes += $0 }
        }

        mutating func varint(_ value: UInt64) {
            var v = value
            while v >= 0x80 { bytes.append(UInt8(v & 0x7F) | 0x80); v >>= 7 }
            bytes.append(UInt8(v))
        }
    }

    /// Reads what `Numbers` wrote; `ok` turns false (and values zero) past the end.
    private struct NumberReader {
        let bytes: UnsafeRawBufferPointer
        var at = 0
        var ok = true

        mutating func byte() -> UInt8 {
            guard ok, at < bytes.count else { ok = false; return 0 }
            defer { at += 1 }
            return bytes[at]
        }

        mutating func varint() -> UInt64 {
            var value: UInt64 = 0, shift: UInt64 = 0
            while ok, shift < 64 {
                let b = byte()
                value |= UInt64(b & 0x7F) << shift
                if b < 0x80 { return value }
                shift += 7
            }
            ok = false
            return 0
        }

        mutating func number(from base: Double) -> Double {
            let v = varint()
            let code = Int(v & 3)
            if code < 3 { return base + Double(v >> 2) / HealthSamplePack.scales[code] }
            guard ok, at + 8 <= bytes.count else { ok = false; return 0 }
            defer { at += 8 }
            return Double(bitPattern: UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: at, as: UInt64.self)))
        }
    }
}
