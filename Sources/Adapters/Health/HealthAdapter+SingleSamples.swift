import FoundationEssentials
import IngestCore

extension HealthAdapter {
    /// Packs the days of a store written before packs (one record per sample, on its kind's
    /// shelf), before anything else is stored: a pack merges only with packs. Each commit packs
    /// 32 days and drops their single records, so a run stopped half-way packs the rest next
    /// time; none is fsynced, as a commit lost to a power cut leaves its days as they were. The
    /// packed days count as changed and are rolled up again: the same samples, decoded in the
    /// same order, give the same items, so none is sent again.
    static func packSingleSamples(_ sink: some RecordSink) async throws {
        var days = Set<String>()
        for shelf in HealthSampleCodec.singleSampleShelves { days.formUnion(try sink.records.groups(onShelf: shelf)) }
        guard !days.isEmpty else { return }
        var committer = ChunkCommitter(sink)
        var packing = RecordChanges(merge: HealthSamplePack.merge)
        for (i, day) in days.sorted().enumerated() {
            let samples = HealthSampleCodec.decode(group: try sink.records.group(day).records).samples
            packing.records += HealthSamplePack.records(samples, group: day)
            // Keys below 2 are the single records (1); workouts (2) and packs (3) stay.
            packing.cutoffs.append(RecordCutoff(group: day, below: [2]))
            if packing.cutoffs.count == 32 || i == days.count - 1 {
                try await committer.commit([], anchor: AnchorUpdate(durable: false), records: packing)
                packing = RecordChanges(merge: HealthSamplePack.merge)
            }
        }
        try await committer.finish()
        Log.info("health: \(days.count) days of single sample records packed")
    }
}
