import Foundation
import IngestCore
import Testing
@testable import Adapters

/// A store written before packs, one record per sample (``SingleSampleRecord``), and settled by
/// that build's roll-up: the first scan after the upgrade packs every day, which then reads
/// back the same samples in the same order, and sends nothing, whether the export is opened
/// again or not.
struct SingleSampleStoreTests {
    let root = NSTemporaryDirectory() + "single-samples-\(UUID().uuidString)"

    func adapter(_ export: String) throws -> HealthAdapter {
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        try "[Adapter]\nType=health\nPath=\(export)\n".write(toFile: root + "/health.conf", atomically: true, encoding: .utf8)
        return try HealthAdapter(config: AdapterRegistry([HealthAdapter.self]).loadConfig(file: root + "/health.conf"))
    }

    @Test(arguments: ["demo/health/export.xml", "health/hae/export.json"])
    func aStoreOfSingleRecordsIsPackedReadsTheSameAndSendsNothing(_ fixture: String) async throws {
        defer { try? FileManager.default.removeItem(atPath: root) }
        let export = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../../fixtures/\(fixture)").standardized.path
        let health = try adapter(export)
        let first = CollectingSink()
        try await health.scan(since: Anchor(), into: first)
        #expect(!first.items.isEmpty)

        // The same samples as the build before stored them: each day's records dropped and
        // written again one per sample (workouts as they are), then rolled up by that build's
        // path (single records decoded in store order) against what was sent.
        let read = HealthCollector(chunkSize: .max)
        try HealthAdapter.readers.first { $0.detect(name: export.lastPathComponent, head: Array(try Data(contentsOf: URL(fileURLWithPath: export)).prefix(4096))) }!
            .read(HealthInput(path: export), HealthSettings(), into: read)
        let singles = SingleSampleRecord.stored(read.samples)
        let days = Set(singles.map(\.group)).union(read.workouts.map { HealthSampleCodec.stored($0).group })
        let drop = RecordChanges(cutoffs: days.map { RecordCutoff(group: $0, below: [4]) })
        let old = RecordChanges(records: singles + read.workouts.map(HealthSampleCodec.stored))
        try await first.commit([], anchor: .none, records: drop)
        try await first.commit([], anchor: .none, records: old)
        var before: [String: HealthSampleCodec.Day] = [:]
        var settle = RecordChanges()
        for day in try first.records.changedGroups() {
            let group = try first.records.group(day)
            before[day] = HealthSampleCodec.decode(group: group.records)
            let (queued, settled) = HealthAdapter.rollUp(date: day, group, health.items)
            #expect(queued.isEmpty, "\(day): single records give the items packs gave")
            settle.settled[day] = settled
        }
        try await first.commit([], anchor: .none, records: settle)
        #expect(try !first.records.groups(onShelf: HealthSampleCodec.kindCode(.steps)).isEmpty)

        // The upgrade: the export is unchanged (not opened), then read again.
        let upgraded = first.next()
        try await health.scan(since: upgraded.anchor, into: upgraded)
        #expect(upgraded.items.isEmpty && upgraded.warnings.isEmpty)
        for shelf in HealthSampleCodec.singleSampleShelves { #expect(try upgraded.records.groups(onShelf: shelf).isEmpty) }
        for (day, records) in before {
            #expect(HealthSampleCodec.decode(group: try upgraded.records.group(day).records) == records, "\(day) reads the same")
        }
        #expect(try upgraded.records.changedGroups().isEmpty)
        let reread = try upgraded.forgettingAnchor()
        try await health.scan(since: reread.anchor, into: reread)
        #expect(reread.items.isEmpty)
    }
}
