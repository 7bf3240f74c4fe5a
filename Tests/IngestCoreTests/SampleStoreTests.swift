import Foundation
import Testing
@testable import IngestCore

/// Samples shared per source in the state store: stored once per key, a new value replacing the
/// old, buckets dirty on new or changed samples only, settled with what was sent unless new
/// samples came meanwhile, and reset by resync.
struct SampleStoreTests {
    func sample(_ bucket: String, _ byte: UInt8, value: UInt8 = 9) -> StoredSample { StoredSample(bucket: bucket, key: [1, byte], value: [value]) }

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
        #expect(Set(day.samples) == [sample("2024-06-01", 1), sample("2024-06-01", 2)] && day.dirt == 2 && day.sent == nil)

        try commit(store, [], settled: ["2024-06-01": SettledBucket(sent: Array("day:2024-06-01\tv1\n".utf8), dirt: 2),
                                       "2024-06-02": SettledBucket(sent: [], dirt: 1)])
        #expect(try store.dirtySampleBuckets(source: "linux-health").isEmpty)
        #expect(try store.sampleBucket(source: "linux-health", bucket: "2024-06-01").sent == Array("day:2024-06-01\tv1\n".utf8))

        // Another instance (another export) repeating the same samples changes nothing.
        try commit(store, [sample("2024-06-01", 2), sample("2024-06-02", 1)], adapter: "health-old-phone")
        #expect(try store.dirtySampleBuckets(source: "linux-health").isEmpty)
        // Other sources are apart.
        #expect(try store.dirtySampleBuckets(source: "linux-other").isEmpty)
        // A corrected value replaces the old one and dirties its day.
        try commit(store, [sample("2024-06-02", 1, value: 7)])
        #expect(try store.dirtySampleBuckets(source: "linux-health") == ["2024-06-02"])
        #expect(try store.sampleBucket(source: "linux-health", bucket: "2024-06-02").samples == [sample("2024-06-02", 1, value: 7)])
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
        #expect(day.sent == nil && day.samples == [sample("2024-06-01", 1)])
        try store.resetAllAnchors()                                   // pairing with another node does the same
        #expect(try store.dirtySampleBuckets(source: "linux-health") == ["2024-06-01"])
    }

    @Test func aDryRunOverlaySeesTheStoreAndItsOwnSamples() {
        var overlay = SampleOverlay()
        var changes = AnchorChanges()
        changes.samples = [sample("2024-06-01", 1), sample("2024-06-01", 2), sample("2024-06-01", 2), sample("2024-06-02", 3)]
        overlay.apply(changes) { $0 == sample("2024-06-01", 1) }       // the first is stored already
        #expect(overlay.dirtyBuckets(over: []) == ["2024-06-01", "2024-06-02"])
        let day = overlay.bucket("2024-06-01", over: SampleBucket(samples: [sample("2024-06-01", 1)], sent: nil, dirt: 0))
        #expect(Set(day.samples) == [sample("2024-06-01", 1), sample("2024-06-01", 2)] && day.dirt == 1)
        var corrected = AnchorChanges()
        corrected.samples = [sample("2024-06-01", 1, value: 3)]
        overlay.apply(corrected) { _ in false }
        #expect(Set(overlay.bucket("2024-06-01", over: SampleBucket(samples: [sample("2024-06-01", 1)], sent: nil, dirt: 0)).samples)
                == [sample("2024-06-01", 1, value: 3), sample("2024-06-01", 2)], "the overlay's value wins over the store's")
        var settle = AnchorChanges()
        settle.settled = ["2024-06-01": SettledBucket(sent: [1], dirt: 2), "2024-06-02": SettledBucket(sent: [], dirt: 1)]
        overlay.apply(settle) { _ in false }
        #expect(overlay.dirtyBuckets(over: []).isEmpty)
    }
}
