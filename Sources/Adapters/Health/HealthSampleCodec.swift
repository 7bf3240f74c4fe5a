import FoundationEssentials
import IngestCore

/// Samples and workouts as the state store keeps them, grouped by the local day they count
/// toward. A workout is a record of its own on shelf 0: its key is what it is (times, offset,
/// activity, source), its value what it measured, so the same workout read from two exports
/// counts once and a corrected one replaces it. Samples are packed, a day's of one kind and
/// source in one record (``HealthSamplePack``); stores written before kept one record per
/// sample on the kind's shelf, key `1, kind, daily, start, end, offset, source` (read here,
/// packed by ``HealthAdapter/packSingleSamples(_:)``).
enum HealthSampleCodec {
    enum Record: Sendable, Equatable {
        case sample(HealthSample)
        case workout(HealthWorkout)
    }

    /// What a day's records hold.
    struct Day: Equatable {
        var samples: [HealthSample] = []
        var workouts: [HealthWorkout] = []
    }

    static func stored(_ workout: HealthWorkout) -> StateRecord {
        var key = Writer(), value = Writer()
        key.byte(2); key.time(workout.start); key.time(workout.end); key.int32(workout.offset)
        key.string(workout.activity); key.string(workout.source)
        value.byte((workout.energyKcal != nil ? 1 : 0) | (workout.distanceM != nil ? 2 : 0))
        if let energy = workout.energyKcal { value.double(energy) }
        if let distance = workout.distanceM { value.double(distance) }
        return StateRecord(group: HealthTime.localDate(of: workout.start, offset: workout.offset), shelf: 0, key: key.bytes, value: value.bytes)
    }

    /// Decodes a day's samples, making each source name a string once (a day repeats a few).
    struct Decoder {
        private var names: [([UInt8], String)] = []

        /// nil for bytes this version did not write (the store outlives builds).
        mutating func decode(_ stored: StateRecord) -> Record? {
            stored.key.withUnsafeBytes { key in
                stored.value.withUnsafeBytes { value in HealthSampleCodec.decode(key, value, names: &names) }
            }
        }
    }

    /// A day's records as its samples and workouts, in the order single records came back from
    /// the store: workouts, then samples by kind, daily-ness, start, end, offset and source, so
    /// that figures summed in that order come out to the same bits as before packs. Records
    /// this version did not write are left out.
    static func decode(group records: [StateRecord]) -> Day {
        var out = Day()
        var decoder = Decoder()
        var packs: [(shelf: UInt8, key: [UInt8], entries: [HealthSamplePack.Entry])] = []
        for r in records {
            if r.key.first != HealthSamplePack.keyTag {
                switch decoder.decode(r) {
                case .sample(let s): out.samples.append(s)
                case .workout(let w): out.workouts.append(w)
                case nil: break
                }
            } else if r.key.count >= 4, r.shelf >= HealthSamplePack.shelfOffset, let entries = HealthSamplePack.decode(r.value) {
                packs.append((r.shelf, r.key, entries))
            }
        }
        packs.sort { $0.shelf != $1.shelf ? $0.shelf < $1.shelf : $0.key.lexicographicallyPrecedes($1.key) }
        var first = 0
        while first < packs.count {
            var end = first + 1
            while end < packs.count, packs[end].shelf == packs[first].shelf, packs[end].key[1] == packs[first].key[1] { end += 1 }
            if let kind = kind(packs[first].shelf - HealthSamplePack.shelfOffset) {
                interleave(packs[first..<end].map { ($0.entries, source(inKey: $0.key)) }, kind: kind, daily: packs[first].key[1] != 0, into: &out.samples)
            }
            first = end
        }
        return out
    }

    /// The samples of one kind's packs (sources in key order) merged by time; on a tie the
    /// source that sorts first, as its key bytes did.
    private static func interleave(_ packs: [([HealthSamplePack.Entry], String)], kind: HealthSample.Kind, daily: Bool, into out: inout [HealthSample]) {
        var next = [Int](repeating: 0, count: packs.count)
        out.reserveCapacity(out.count + packs.reduce(0) { $0 + $1.0.count })
        while true {
            var least = -1
            for (p, pack) in packs.enumerated() where next[p] < pack.0.count {
                if least < 0 || pack.0[next[p]].order < packs[least].0[next[least]].order { least = p }
            }
            guard least >= 0 else { return }
            let e = packs[least].0[next[least]]
            next[least] += 1
            out.append(HealthSample(kind: kind, start: e.start, end: e.end, offset: Int(e.offset), value: e.value,
                                    source: packs[least].1, low: e.low, high: e.high, daily: daily))
        }
    }

    /// The source of a pack's key (`3, daily, length (2 bytes, little-endian), UTF-8`).
    private static func source(inKey key: [UInt8]) -> String {
        let count = min(Int(key[2]) | Int(key[3]) << 8, key.count - 4)
        return String(decoding: key[4..<(4 + count)], as: UTF8.self)
    }

    private static func decode(_ keyBytes: UnsafeRawBufferPointer, _ valueBytes: UnsafeRawBufferPointer, names: inout [([UInt8], String)]) -> Record? {
        var k = Reader(bytes: keyBytes, names: names), v = Reader(bytes: valueBytes, names: [])
        defer { names = k.names }
        switch k.byte() {
        case 1:
            guard let kind = kind(k.byte()) else { return nil }
            let daily = k.byte() & 1 != 0
            let start = k.time(), end = k.time(), offset = k.int32(), source = k.string()
            let flags = v.byte()
            var s = HealthSample(kind: kind, start: start, end: end, offset: offset, value: v.double(), source: source, daily: daily)
            if flags & 1 != 0 { s.low = v.double() }
            if flags & 2 != 0 { s.high = v.double() }
            return k.ok && v.ok ? .sample(s) : nil
        case 2:
            let start = k.time(), end = k.time(), offset = k.int32(), activity = k.string(), source = k.string()
            let flags = v.byte()
            let energy = flags & 1 != 0 ? v.double() : nil
            let distance = flags & 2 != 0 ? v.double() : nil
            return k.ok && v.ok ? .workout(HealthWorkout(activity: activity, start: start, end: end, offset: offset,
                                                         energyKcal: energy, distanceM: distance, source: source)) : nil
        default:
            return nil
        }
    }

    /// Health's records sit on shelves 0 ..< `shelfCount`: workouts on 0, a kind's single records
    /// of the layout before packs on its code, its packs on the code plus
    /// ``HealthSamplePack/shelfOffset``.
    static let shelfCount = 32

    /// The shelves of the single-sample records of the layout before packs: one per kind.
    static let singleSampleShelves: [UInt8] = plainKinds.map(kindCode) + HealthSample.SleepStage.allCases.map { kindCode(.sleep($0)) }

    private static let plainKinds: [HealthSample.Kind] = [.steps, .activeEnergy, .basalEnergy, .heartRate, .restingHeartRate, .hrv]

    static func kindCode(_ kind: HealthSample.Kind) -> UInt8 {
        if case .sleep(let stage) = kind { return 16 + UInt8(HealthSample.SleepStage.allCases.firstIndex(of: stage)!) }
        return 1 + UInt8(plainKinds.firstIndex(of: kind)!)
    }

    static func kind(_ code: UInt8) -> HealthSample.Kind? {
        if code >= 16 { let i = Int(code) - 16; return i < HealthSample.SleepStage.allCases.count ? .sleep(HealthSample.SleepStage.allCases[i]) : nil }
        return code >= 1 && Int(code) <= plainKinds.count ? plainKinds[Int(code) - 1] : nil
    }

    struct Writer {
        var bytes: [UInt8] = []
        init() { bytes.reserveCapacity(64) }
        mutating func byte(_ b: UInt8) { bytes.append(b) }
        mutating func double(_ d: Double) { var v = d.bitPattern.littleEndian; withUnsafeBytes(of: &v) { bytes += $0 } }
        /// A time whose bytes sort as the time does (sign-flipped IEEE, big-endian): a day's
        /// samples of one kind then go into the store's B-tree in key order, one after another.
        mutating func time(_ t: Double) {
            let bits = t.bitPattern
            var v = (bits & (1 << 63) != 0 ? ~bits : bits | (1 << 63)).bigEndian
            withUnsafeBytes(of: &v) { bytes += $0 }
        }
        mutating func int32(_ i: Int) { var v = Int32(clamping: i).littleEndian; withUnsafeBytes(of: &v) { bytes += $0 } }
        mutating func string(_ s: String) {
            var s = s
            s.withUTF8 { utf8 in
                let count = min(utf8.count, 0xFFFF)
                byte(UInt8(count & 0xFF)); byte(UInt8(count >> 8)); bytes.append(contentsOf: utf8.prefix(count))
            }
        }
    }

    /// Reads what `Writer` wrote; `ok` turns false (and values zero) past the end.
    private struct Reader {
        let bytes: UnsafeRawBufferPointer
        /// Strings already made, by their bytes.
        var names: [([UInt8], String)]
        var at = 0
        var ok = true
        private mutating func take(_ n: Int) -> Int? {
            guard ok, at + n <= bytes.count else { ok = false; return nil }
            defer { at += n }
            return at
        }
        mutating func byte() -> UInt8 { take(1).map { bytes[$0] } ?? 0 }
        mutating func double() -> Double {
            take(8).map { Double(bitPattern: UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: $0, as: UInt64.self))) } ?? 0
        }
        mutating func time() -> Double {
            take(8).map {
                let v = UInt64(bigEndian: bytes.loadUnaligned(fromByteOffset: $0, as: UInt64.self))
                return Double(bitPattern: v & (1 << 63) != 0 ? v & ~(1 << 63) : ~v)
            } ?? 0
        }
        mutating func int32() -> Int { take(4).map { Int(Int32(littleEndian: bytes.loadUnaligned(fromByteOffset: $0, as: Int32.self))) } ?? 0 }
        mutating func string() -> String {
            let count = Int(byte()) | Int(byte()) << 8
            guard let start = take(count) else { return "" }
            let utf8 = UnsafeRawBufferPointer(rebasing: bytes[start..<(start + count)])
            if let known = names.first(where: { $0.0.elementsEqual(utf8) }) { return known.1 }
            let text = String(decoding: utf8, as: UTF8.self)
            if names.count < 16 { names.append((Array(utf8), text)) }
            return text
        }
    }
}
