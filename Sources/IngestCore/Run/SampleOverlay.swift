/// Sample buckets kept in memory over the state store's: what a dry run would add and settle
/// (nothing is written), or a test sink's whole sample store.
public struct SampleOverlay: Sendable {
    private var added: [String: Set<[UInt8]>] = [:]
    /// Per bucket: new samples added here, and dirt settled here.
    private var gained: [String: Int64] = [:]
    private var cleared: [String: Int64] = [:]
    private var sent: [String: [UInt8]] = [:]

    public init() {}

    /// Adds `changes.samples` that are neither stored (`isStored`) nor added already, and settles buckets.
    public mutating func apply(_ changes: AnchorChanges, isStored: (StoredSample) -> Bool) {
        for sample in changes.samples where !(added[sample.bucket]?.contains(sample.data) ?? false) && !isStored(sample) {
            added[sample.bucket, default: []].insert(sample.data)
            gained[sample.bucket, default: 0] += 1
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
        SampleBucket(samples: stored.samples + (added[name].map(Array.init) ?? []),
                     sent: sent[name] ?? stored.sent,
                     dirt: max(0, stored.dirt + (gained[name] ?? 0) - (cleared[name] ?? 0)))
    }
}
