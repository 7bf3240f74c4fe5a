@testable import Adapters
import IngestCore

/// A sample as stores written before packs kept it, one record each (spelt out here as that
/// build wrote it): on its kind's shelf, key `1, kind, daily, start, end, offset, source`,
/// value `flags, value, low?, high?`, grouped by the day it counts toward.
enum SingleSampleRecord {
    static func make(_ s: HealthSample) -> StateRecord {
        var key = HealthSampleCodec.Writer(), value = HealthSampleCodec.Writer()
        key.byte(1); key.byte(HealthSampleCodec.kindCode(s.kind)); key.byte(s.daily ? 1 : 0)
        key.time(s.start); key.time(s.end); key.int32(s.offset); key.string(s.source)
        value.byte((s.low != nil ? 1 : 0) | (s.high != nil ? 2 : 0)); value.double(s.value)
        if let low = s.low { value.double(low) }
        if let high = s.high { value.double(high) }
        return StateRecord(group: s.day, shelf: HealthSampleCodec.kindCode(s.kind), key: key.bytes, value: value.bytes)
    }

    /// `samples` as that build stored them: a key written again keeps its later value, and a
    /// day's records come back in (shelf, key) order.
    static func stored(_ samples: [HealthSample]) -> [StateRecord] {
        var byKey: [StateRecord: StateRecord] = [:]
        for s in samples {
            let r = make(s)
            byKey[StateRecord(group: r.group, shelf: r.shelf, key: r.key, value: [])] = r
        }
        return byKey.values.sorted {
            ($0.group, $0.shelf) != ($1.group, $1.shelf) ? ($0.group, $0.shelf) < ($1.group, $1.shelf) : $0.key.lexicographicallyPrecedes($1.key)
        }
    }
}
