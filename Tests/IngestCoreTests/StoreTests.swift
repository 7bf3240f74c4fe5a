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

struct RFC3339Tests {
    @Test func timesAreWrittenExactlyAsTheISO8601FormatStyleWritesThem() {
        // Edges (fractions, before 1970, the fast range's ends, a leap day), then strides with
        // fractional steps through 1970 ... 2096 and through the whole range.
        let edges: [Double] = [0, 1.9, -0.5, -1e-7, 999_999_999.999_999_9, 951_782_400, 86_399.999_9, 1_733_011_200.25,
                               -11_676_096_000, -11_676_096_001, 253_402_300_799, 253_402_300_800, -62_135_596_800]
        let times = edges + Array(stride(from: 0, to: 4e9, by: 199_999.37)) + Array(stride(from: -13e9, to: 2.6e11, by: 27_300_001.3))
        for seconds in times {
            let date = Date(timeIntervalSince1970: seconds)
            #expect(date.rfc3339 == date.formatted(Date.ISO8601FormatStyle()), "\(seconds)")
        }
    }
}

struct StateStoreTests {
    @Test func itemsAndAnchorCommitTogetherInOrder() throws {
        let store = try StateStore(paths: temporaryPaths())
        try store.commit(adapter: "pics", source: "linux-photos", items: [photo("a"), photo("b")],
                         anchor: AnchorUpdate(updates: ["file:/x": Data([1])]))
        #expect(try store.anchor(for: "pics")["file:/x"] == Data([1]))
        try store.commit(adapter: "pics", source: "linux-photos", items: [photo("a", lat: 5)], anchor: AnchorUpdate(removals: ["file:/x"]))
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

    @Test func aCommitAcrossEndpointsAndStatementsComesBackExactly() throws {
        let store = try StateStore(paths: temporaryPaths())
        // Runs of photos (longer than one 32-row statement, with tombstones) around unversioned captures.
        let photos = (0..<40).map { $0 % 7 == 3 ? Item.tombstone(endpoint: .photos, key: "p\($0)") : photo("p\($0)", lat: Double($0)) }
        let notes = (0..<5).map { Item(endpoint: .capture, key: "n\($0)", versioned: false, fields: ["text": .string("note \($0)")]) }
        let items = Array(photos[..<33]) + notes + Array(photos[33...])
        #expect(try store.commit(adapter: "mixed", source: "linux-mixed", items: items, anchor: .none) == items.count)
        for (endpoint, expected) in [(Endpoint.photos, photos), (.capture, notes)] {
            let lane = try #require(try store.lanes().first { $0.endpoint == endpoint })
            let batch = try store.nextBatch(lane, after: 0, maxItems: 1000, maxBytes: 1 << 20)
            #expect(batch.map(\.key) == expected.map(\.key))
            #expect(batch.map(\.version) == expected.map(\.version))
            #expect(batch.map(\.deleted) == expected.map(\.deleted))
            #expect(batch.map(\.body) == expected.map(\.json))
            #expect(batch.allSatisfy { $0.adapter == "mixed" && $0.source == "linux-mixed" })
        }
    }

    @Test func closingKeepsASmallWALAndCheckpointsALargeOne() throws {
        let paths = temporaryPaths()
        let wal = paths.stateDatabase + "-wal"
        var store = try StateStore(paths: paths)
        try store.commit(adapter: "pics", source: "linux-photos", items: [photo("a")], anchor: .none)
        store.db.close()
        #expect(FileSystem.exists(wal), "the next process appends to it: one fsync per commit")
        store = try StateStore(paths: paths)
        #expect(try store.outboxDepth()[.photos] == 1)
        let big = Item(endpoint: .capture, key: "big", versioned: false, fields: ["text": .string(String(repeating: "x", count: 2 << 20))])
        try store.commit(adapter: "capture", source: "linux-capture", items: [big], anchor: .none)
        store.db.close()
        #expect(!FileSystem.exists(wal), "a WAL over \(SQLiteDatabase.walKeptAtClose) bytes goes into the database")
        store = try StateStore(paths: paths)
        #expect(try store.outboxDepth()[.photos] == 1)
        #expect(try store.outboxDepth()[.capture] == 1)
    }

    @Test func aNewStoreIsMadeWholeAndAnEmptyFileGetsItsSchemaInPlace() throws {
        func shape(_ store: StateStore) throws -> [String] {
            try store.commit(adapter: "pics", source: "linux-photos", items: [photo("a")], anchor: .none)
            return try store.read { (c) throws(SQLiteError) -> [String] in
                var mode = ""
                try c.query("PRAGMA journal_mode") { r in mode = r.text(0) ?? ""; return false }
                return [mode, "\(try c.scalar("PRAGMA page_size"))", "\(try c.scalar("PRAGMA user_version"))", "\(try c.scalar("SELECT count(*) FROM outbox"))"]
            }
        }
        let made = temporaryPaths()
        #expect(try shape(StateStore(paths: made)) == ["wal", "16384", "\(StateStore.schemaVersion)", "1"])
        #expect(!FileSystem.exists(made.stateDatabase + ".new-\(ProcessInfo.processInfo.processIdentifier)"), "the scratch file is gone once linked")
        // A file another process created but has not filled yet is migrated where it is.
        let empty = temporaryPaths()
        try FileSystem.ensureDirectory(empty.stateDir)
        try FileSystem.writeAtomically(empty.stateDatabase, [], mode: 0o644)
        #expect(try shape(StateStore(paths: empty)) == ["wal", "16384", "\(StateStore.schemaVersion)", "1"])
        let node = try LocalNode(path: made.stateDir + "/local-node.db")
        #expect(node.store(endpoint: .photos, source: "linux-photos", items: [OutboxEntry(id: 0, lane: 0, endpoint: .photos, source: "linux-photos", adapter: "pics",
                                                                                         key: "a", version: "1", deleted: false, body: Array("{}".utf8))])
                == .stored(accepted: 1, duplicates: 0))
    }

    /// New embedded nodes take 8 KiB pages; one made with SQLite's 4 KiB (an older build) keeps
    /// them and its rows. Either way its WAL is copied into the database once a commit passes 1 MiB,
    /// with the node still open: the file holds the rows before any close.
    @Test func anEmbeddedNodeKeepsItsPageSizeAndCheckpointsPastOneMiB() throws {
        func settings(_ node: LocalNode) throws -> [Int64] {
            try node.db.withConnection { (c) throws(SQLiteError) -> [Int64] in
                [try c.scalar("PRAGMA page_size"), try c.scalar("PRAGMA wal_autocheckpoint"), try c.scalar("SELECT count(*) FROM items")]
            }
        }
        func entries(_ count: Int, from first: Int) -> [OutboxEntry] {
            (first..<(first + count)).map {
                OutboxEntry(id: 0, lane: 0, endpoint: .photos, source: "linux-photos", adapter: "pics", key: "k\($0)", version: "1",
                            deleted: false, body: Array("{\"pad\":\"\(String(repeating: "x", count: 1000))\"}".utf8))
            }
        }
        let fresh = temporaryPaths()
        try FileSystem.ensureDirectory(fresh.stateDir)
        let node = try LocalNode(path: fresh.localNodeDatabase)
        #expect(try settings(node) == [8192, 128, 0])
        #expect(node.store(endpoint: .photos, source: "linux-photos", items: entries(2000, from: 0)) == .stored(accepted: 2000, duplicates: 0))
        #expect(try #require(FileManager.default.attributesOfItem(atPath: fresh.localNodeDatabase)[.size] as? Int) > 2_000_000)

        let paths = temporaryPaths()
        try FileSystem.ensureDirectory(paths.stateDir)
        let old = try SQLiteDatabase(path: paths.localNodeDatabase)
        try old.execute("PRAGMA page_size=4096; PRAGMA journal_mode=WAL")
        old.close()
        let older = try LocalNode(path: paths.localNodeDatabase)
        #expect(older.store(endpoint: .photos, source: "linux-photos", items: entries(1, from: 0)) == .stored(accepted: 1, duplicates: 0))
        older.db.close()
        let reopened = try LocalNode(path: paths.localNodeDatabase)
        #expect(try settings(reopened) == [4096, 256, 1])
    }

    @Test func deadLettersLeaveTheOutbox() throws {
        let store = try StateStore(paths: temporaryPaths())
        try store.commit(adapter: "pics", source: "linux-photos", items: [photo("a")], anchor: .none)
        let lane = try #require(try store.lanes().first)
        try store.deadLetter(try store.nextBatch(lane, after: 0, maxItems: 1, maxBytes: 1 << 20), error: "lat out of range")
        #expect(try store.outboxDepth().isEmpty)
        #expect(try store.recentDeadLetters(limit: 5).map(\.error) == ["lat out of range"])
    }
}
