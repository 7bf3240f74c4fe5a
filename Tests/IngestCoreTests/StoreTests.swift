import FoundationEssentials
@testable import IngestCore
import Testing

func temporaryPaths() -> Paths {
    let dir = "/tmp/hl-unit-\(UUID().uuidString.prefix(8))"
    return Paths(configDir: dir + "/config", stateDir: dir + "/state")
}

func photo(_ key: String, lat: Double = 1) -> Item {
    Item(endpoint: .photos, key: key, fields: ["lat": .double(lat), "lon": 2, "taken_at": "2026-01-01T00:00:00Z"])
}

struct JSONValueTests {
    @Test func encodingIsCompactSortedAndEscaped() {
        let v: JSONValue = ["b": 1, "a": ["x\"\\\n\u{1}", 1.5, nil, true], "c": .double(3)]
        #expect(String(decoding: v.encoded, as: UTF8.self) == #"{"a":["x\"\\\n\u0001",1.5,null,true],"b":1,"c":3}"#)
        #expect(JSONValue.double(.nan).encoded == Array("null".utf8))
    }

    @Test func itemVersionIsAHashOfItsFields() {
        #expect(photo("k").version == photo("k").version)
        #expect(photo("k").version != photo("k", lat: 1.0001).version)
        let json = String(decoding: Item.tombstone(endpoint: .photos, key: "k").json, as: UTF8.self)
        #expect(json == #"{"deleted":true,"key":"k"}"#)
    }
}

struct StateStoreTests {
    @Test func itemsAndAnchorCommitTogetherInOrder() throws {
        let store = try StateStore(paths: temporaryPaths())
        try store.commit(adapter: "pics", source: "linux-photos", items: [photo("a"), photo("b")],
                         anchor: AnchorChanges(updates: ["file:/x": Data([1])]))
        #expect(try store.anchor(for: "pics")["file:/x"] == Data([1]))
        try store.commit(adapter: "pics", source: "linux-photos", items: [photo("a", lat: 5)], anchor: AnchorChanges(removals: ["file:/x"]))
        #expect(try store.anchor(for: "pics").isEmpty)
        let lane = try #require(try store.lanes().first)
        let batch = try store.nextBatch(lane, after: 0, maxItems: 10, maxBytes: 1 << 20)
        #expect(batch.map(\.key) == ["a", "b", "a"])
        #expect(batch.last?.version == photo("a", lat: 5).version, "the newer version goes out after the older")
    }

    @Test func aBatchQueuedWhileInFlightStaysQueued() throws {
        let store = try StateStore(paths: temporaryPaths())
        try store.commit(adapter: "pics", source: "linux-photos", items: [photo("a"), photo("b")], anchor: .none)
        let lane = try #require(try store.lanes().first)
        let sent = try store.nextBatch(lane, after: 0, maxItems: 10, maxBytes: 1 << 20)
        try store.commit(adapter: "pics", source: "linux-photos", items: [photo("a", lat: 9)], anchor: .none)   // arrives mid-flight
        try store.delivered(sent)
        #expect(try store.outboxDepth()[.photos] == 1, "the newer version must still go out")
        #expect(try store.adapterStats()["pics"]?.syncedCount == 2)
        #expect(try store.hasQueued(.photos))
        #expect(try !store.hasQueued(.capture))
    }

    @Test func batchesRespectTheByteBudgetButAlwaysTakeOne() throws {
        let store = try StateStore(paths: temporaryPaths())
        let big = (0..<5).map { Item(endpoint: .capture, key: "k\($0)", fields: ["text": .string(String(repeating: "x", count: 400))]) }
        try store.commit(adapter: "capture", source: "linux-capture", items: big, anchor: .none)
        let lane = try #require(try store.lanes().first)
        #expect(try store.nextBatch(lane, after: 0, maxItems: 1000, maxBytes: 1000).count == 2)
        #expect(try store.nextBatch(lane, after: 0, maxItems: 1000, maxBytes: 10).count == 1)
        #expect(try store.nextBatch(lane, after: 0, maxItems: 3, maxBytes: 1 << 20).count == 3)
    }

    @Test func deadLettersLeaveTheOutbox() throws {
        let store = try StateStore(paths: temporaryPaths())
        try store.commit(adapter: "pics", source: "linux-photos", items: [photo("a")], anchor: .none)
        let lane = try #require(try store.lanes().first)
        try store.deadLetter(try store.nextBatch(lane, after: 0, maxItems: 1, maxBytes: 1 << 20), error: "lat out of range")
        #expect(try store.outboxDepth().isEmpty)
        #expect(try store.recentDeadLetters(limit: 5).map(\.error) == ["lat out of range"])
    }

    @Test func theJournalIsRewrittenByTimePrunedAndKeptAcrossAResync() throws {
        let store = try StateStore(paths: temporaryPaths())
        var changes = AnchorChanges(updates: ["last": Data([1])])
        changes.journal = [JournalEntry(time: 100, data: [1]), JournalEntry(time: 160, data: [2])]
        try store.commit(adapter: "gps", source: "linux-gpsd", items: [], anchor: changes)
        var grow = AnchorChanges()
        grow.journal = [JournalEntry(time: 160, data: [2, 3])]
        try store.commit(adapter: "gps", source: "linux-gpsd", items: [], anchor: grow)
        #expect(try store.journal(for: "gps", since: 0) == [JournalEntry(time: 100, data: [1]), JournalEntry(time: 160, data: [2, 3])])
        #expect(try store.journal(for: "gps", since: 150).map(\.time) == [160])
        #expect(try store.journal(for: "other", since: 0).isEmpty)
        try store.resetAnchor(for: "gps")
        #expect(try store.anchor(for: "gps").isEmpty)
        #expect(try store.journal(for: "gps", since: 0).count == 2, "resync re-derives from the journal, so it must survive")
        var prune = AnchorChanges()
        prune.journalPruneBefore = 150
        try store.commit(adapter: "gps", source: "linux-gpsd", items: [], anchor: prune)
        #expect(try store.journal(for: "gps", since: 0).map(\.time) == [160])
    }
}

struct LocalNodeTests {
    func entries(_ items: [Item]) -> [OutboxEntry] {
        items.enumerated().map { i, item in
            OutboxEntry(id: Int64(i), lane: 1, endpoint: item.endpoint, source: "linux-photos", adapter: "a", key: item.key,
                        version: item.version, deleted: item.deleted, body: item.json)
        }
    }

    @Test func dedupVersionsAndTombstonesFollowTheContract() throws {
        let paths = temporaryPaths()
        try FileSystem.ensureDirectory(paths.stateDir)
        let node = try LocalNode(path: paths.localNodeDatabase)
        #expect(node.post(endpoint: .photos, source: "linux-photos", items: entries([photo("a"), photo("b")]), credential: .deviceToken)
                == .stored(accepted: 2, duplicates: 0))
        #expect(node.post(endpoint: .photos, source: "linux-photos", items: entries([photo("a"), photo("b", lat: 3)]), credential: .deviceToken)
                == .stored(accepted: 1, duplicates: 1))
        let tomb = [Item.tombstone(endpoint: .photos, key: "a"), Item.tombstone(endpoint: .photos, key: "never-stored")]
        #expect(node.post(endpoint: .photos, source: "linux-photos", items: entries(tomb), credential: .deviceToken)
                == .stored(accepted: 1, duplicates: 1))
        #expect(node.post(endpoint: .photos, source: "linux-photos", items: entries([tomb[0]]), credential: .deviceToken)
                == .stored(accepted: 0, duplicates: 1))
        #expect(node.post(endpoint: .photos, source: "linux-photos", items: [], credential: .deviceToken) == .tooLarge)
    }

    @Test func aBatchAppliesInOrderAcrossManyRowsAndTombstones() throws {
        let paths = temporaryPaths()
        try FileSystem.ensureDirectory(paths.stateDir)
        let node = try LocalNode(path: paths.localNodeDatabase)
        // 70 photos (more than one multi-row statement), then "k" stored and deleted in one batch,
        // then "j" deleted and stored again in one batch.
        let many = (0..<70).map { photo("p\($0)") }
        #expect(node.post(endpoint: .photos, source: "linux-photos", items: entries(many + [photo("k"), .tombstone(endpoint: .photos, key: "k")]),
                          credential: .deviceToken) == .stored(accepted: 72, duplicates: 0))
        #expect(node.post(endpoint: .photos, source: "linux-photos", items: entries([photo("j"), .tombstone(endpoint: .photos, key: "j"), photo("j", lat: 4)]),
                          credential: .deviceToken) == .stored(accepted: 3, duplicates: 0))
        let holdings = try node.holdings()
        #expect(holdings.map(\.live) == [71] && holdings.map(\.deleted) == [1])
        #expect(node.post(endpoint: .photos, source: "linux-photos", items: entries(many), credential: .deviceToken) == .stored(accepted: 0, duplicates: 70))
    }
}

struct BackoffTests {
    @Test func growsWithJitterUpToTheCap() {
        var b = Backoff(base: 0.5, cap: 4)
        let waits = (0..<8).map { _ in b.next() }
        #expect((0.25...0.5).contains(waits[0]))
        #expect((0.5...1).contains(waits[1]))
        #expect(waits.suffix(4).allSatisfy { (2...4).contains($0) })
        b.reset()
        #expect(b.next() <= 0.5)
    }
}
