import Foundation
import Testing
@testable import IngestCore

/// Samples shared per source in the state store: stored once, buckets dirty on new samples only,
/// settled with what was sent unless new samples came meanwhile, and reset by resync.
struct SampleStoreTests {
    func sample(_ bucket: String, _ byte: UInt8) -> StoredSample { StoredSample(bucket: bucket, data: [1, byte, 9]) }

    func commit(_ store: StateStore, _ samples: [StoredSample], adapter: String = "health", settled: [String: SettledBucket] = [:]) throws {
        var changes = AnchorChanges()
        changes.samples = samples
        changes.settled = settled
        try store.commit(adapter: adapter, source: "linux-health", items: [], anchor: changes)
    }

    @Test func aSampleIsStoredOnceAndOnlyNewOnesDirtyABucket() throws {
        let store = try StateStore(paths: temporaryPaths())
        try commit(store, [sample("2024-06-01", 1), sample("2024-06-01", 2), sample("2024-06-01", 1), sample("2024-06-02", 1)])
        #expect(try store.dirtySampleBuckets(source: "linux-health") == ["2024-06-01", "2024-06-02"])
        let day = try store.sampleBucket(source: "linux-health", bucket: "2024-06-01")
        #expect(Set(day.samples) == [[1, 1, 9], [1, 2, 9]] && day.dirt == 2 && day.sent == nil)

        try commit(store, [], settled: ["2024-06-01": SettledBucket(sent: Array("day:2024-06-01\tv1\n".utf8), dirt: 2),
                                       "2024-06-02": SettledBucket(sent: [], dirt: 1)])
        #expect(try store.dirtySampleBuckets(source: "linux-health").isEmpty)
        #expect(try store.sampleBucket(source: "linux-health", bucket: "2024-06-01").sent == Array("day:2024-06-01\tv1\n".utf8))

        // Another instance (another export) repeating the same samples changes nothing.
        try commit(store, [sample("2024-06-01", 2), sample("2024-06-02", 1)], adapter: "health-old-phone")
        #expect(try store.dirtySampleBuckets(source: "linux-health").isEmpty)
        // Other sources are apart.
        #expect(try store.dirtySampleBuckets(source: "linux-other").isEmpty)
    }

    @Test func samplesThatArriveWhileADayIsRolledUpKeepItDirty() throws {
        let store = try StateStore(paths: temporaryPaths())
        try commit(store, [sample("2024-06-01", 1)])
        let read = try store.sampleBucket(source: "linux-health", bucket: "2024-06-01")
        try commit(store, [sample("2024-06-01", 2)])                 // e.g. `watch` storing a new export
        try commit(store, [], settled: ["2024-06-01": SettledBucket(sent: [], dirt: read.dirt)])
        #expect(try store.dirtySampleBuckets(source: "linux-health") == ["2024-06-01"])
    }

    @Test func resetForgetsWhatWasSentButKeepsTheSamples() throws {
        let store = try StateStore(paths: temporaryPaths())
        try commit(store, [sample("2024-06-01", 1)])
        try commit(store, [], settled: ["2024-06-01": SettledBucket(sent: [7], dirt: 1)])
        try store.resetSampleBuckets(source: "linux-health")
        #expect(try store.dirtySampleBuckets(source: "linux-health") == ["2024-06-01"])
        let day = try store.sampleBucket(source: "linux-health", bucket: "2024-06-01")
        #expect(day.sent == nil && day.samples == [[1, 1, 9]])
        try store.resetAllAnchors()                                   // pairing with another node does the same
        #expect(try store.dirtySampleBuckets(source: "linux-health") == ["2024-06-01"])
    }

    @Test func aDryRunOverlaySeesTheStoreAndItsOwnSamples() {
        var overlay = SampleOverlay()
        var changes = AnchorChanges()
        changes.samples = [sample("2024-06-01", 1), sample("2024-06-01", 2), sample("2024-06-01", 2), sample("2024-06-02", 3)]
        overlay.apply(changes) { $0.data == [1, 1, 9] }              // the first is stored already
        #expect(overlay.dirtyBuckets(over: []) == ["2024-06-01", "2024-06-02"])
        let day = overlay.bucket("2024-06-01", over: SampleBucket(samples: [[1, 1, 9]], sent: nil, dirt: 0))
        #expect(Set(day.samples) == [[1, 1, 9], [1, 2, 9]] && day.dirt == 1)
        var settle = AnchorChanges()
        settle.settled = ["2024-06-01": SettledBucket(sent: [1], dirt: 1), "2024-06-02": SettledBucket(sent: [], dirt: 1)]
        overlay.apply(settle) { _ in false }
        #expect(overlay.dirtyBuckets(over: []).isEmpty)
    }
}
