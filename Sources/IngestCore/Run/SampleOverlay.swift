/// Sample buckets kept in memory over the state store's: what a dry run would add and settle
/// (nothing is written), or a test sink's whole sample store.
public struct SampleOverlay: Sendable {
    /// Per bucket: key → value of samples new or changed here.
    private var added: [String: [SampleBytes: [UInt8]]] = [:]
    /// Per bucket: new samples added here, and dirt settled here.
    private var gained: [String: Int64] = [:]
    private var cleared: [String: Int64] = [:]
    private var sent: [String: [UInt8]] = [:]

    public init() {}

    /// Adds `changes.samples` that are neither stored with the same value (`isStored`) nor added
    /// already, and settles buckets.
    public mutating func apply(_ changes: AnchorChanges, isStored: (StoredSample) -> Bool) {
        var start = 0
        let samples = changes.samples
        while start < samples.count {
            // Samples come in time order: a bucket's arrive together, and its set is looked up once.
            let bucket = samples[start].bucket
            var values = added.removeValue(forKey: bucket) ?? [:]
            var new: Int64 = 0
            while start < samples.count, samples[start].bucket == bucket {
                let sample = samples[start]
                if !isStored(sample), values.updateValue(sample.value, forKey: SampleBytes(sample.key)) != sample.value { new += 1 }
                start += 1
            }
            added[bucket] = values
            gained[bucket, default: 0] += new
        }
        for (bucket, settled) in changes.settled {
            sent[bucket] = settled.sent
            cleared[bucket, default: 0] += settled.dirt
        }
    }

    /// The dirty buckets, given those dirty in the store.
    public func dirtyBuckets(over stored: [String]) -> [String] {
        // A stored dirty bucket settled here has its dirt as read (≥ 1) cleared; only new samples keep it dirty.
        let candidates = Set(stored).union(gained.keys)
        return candidates.filter { bucket in
            (stored.contains(bucket) ? 1 : 0) + (gained[bucket] ?? 0) > (cleared[bucket] ?? 0)
        }.sorted()
    }

    /// One bucket as the store has it plus what was added and settled here.
    public func bucket(_ name: String, over stored: SampleBucket) -> SampleBucket {
        let mine = added[name] ?? [:]
        let kept = stored.samples.filter { mine[SampleBytes($0.key)] == nil }
        return SampleBucket(samples: kept + mine.map { StoredSample(bucket: name, key: $0.key.bytes, value: $0.value) },
                            sent: sent[name] ?? stored.sent,
                            dirt: max(0, stored.dirt + (gained[name] ?? 0) - (cleared[name] ?? 0)))
    }
}

/// A sample's key as a dictionary key, hashed as one block: `[UInt8]`'s own hashing feeds the
/// hasher a byte at a time, which made a dry run of a large export spend a sixth of its time there.
struct SampleBytes: Hashable, Sendable {
    let bytes: [UInt8]
    init(_ bytes: [UInt8]) { self.bytes = bytes }
    func hash(into hasher: inout Hasher) { bytes.withUnsafeBytes { hasher.combine(bytes: $0) } }
}
