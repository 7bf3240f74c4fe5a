import FoundationEssentials
import IngestCore

/// Samples and workouts as the state store keeps them, in two parts. The key is what a sample
/// is — kind, times (so that a kind's samples sort by time), offset, source, and for a workout
/// its activity — and is stored once, so the same sample read from two exports counts once. The
/// value is what it measured; the same key read again with another value (a corrected row)
/// replaces it. Grouped by the local day they count toward, shelved by kind.
enum HealthSampleCodec {
    enum Record: Sendable, Equatable {
        case sample(HealthSample)
        case workout(HealthWorkout)
    }

    static func stored(_ sample: HealthSample) -> StateRecord {
        var key = Writer(), value = Writer()
        key.byte(1); key.byte(kindCode(sample.kind)); key.byte(sample.daily ? 1 : 0)
        key.time(sample.start); key.time(sample.end); key.int32(sample.offset); key.string(sample.source)
        value.byte((sample.low != nil ? 1 : 0) | (sample.high != nil ? 2 : 0)); value.double(sample.value)
        if let low = sample.low { value.double(low) }
        if let high = sample.high { value.double(high) }
        return StateRecord(group: sample.day, shelf: kindCode(sample.kind), key: key.bytes, value: value.bytes)
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

    private static let plainKinds: [HealthSample.Kind] = [.steps, .activeEnergy, .basalEnergy, .heartRate, .restingHeartRate, .hrv]

    private static func kindCode(_ kind: HealthSample.Kind) -> UInt8 {
        if case .sleep(let stage) = kind { return 16 + UInt8(HealthSample.SleepStage.allCases.firstIndex(of: stage)!) }
        return 1 + UInt8(plainKinds.firstIndex(of: kind)!)
    }

    private static func kind(_ code: UInt8) -> HealthSample.Kind? {
        if code >= 16 { let i = Int(code) - 16; return i < HealthSample.SleepStage.allCases.count ? .sleep(HealthSample.SleepStage.allCases[i]) : nil }
        return code >= 1 && Int(code) <= plainKinds.count ? plainKinds[Int(code) - 1] : nil
    }

    private struct Writer {
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
