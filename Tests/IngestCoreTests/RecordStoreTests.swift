import Foundation
import Testing
@testable import IngestCore

/// Adapters' records in the state store: stored once per key, a new value replacing the old,
/// groups changed by new or changed records only, settled unless records came meanwhile, read
/// by range, cut off by key, kept by resync; spaces apart; a preview that changes nothing.
struct RecordStoreTests {
    let shared = StateStore.space(type: "health")

    func record(_ group: String, _ byte: UInt8, value: UInt8 = 9, shelf: UInt8 = 0) -> StateRecord {
        StateRecord(group: group, shelf: shelf, key: [1, byte], value: [value])
    }

    func commit(_ store: StateStore, _ records: [StateRecord], adapter: String = "health", space: String? = nil,
                settled: [String: SettledGroup] = [:]) throws {
        try store.commit(adapter: adapter, source: "linux-health", items: [], anchor: .none,
                         records: RecordChanges(records: records, settled: settled), space: space ?? shared)
    }

    @Test func aRecordIsStoredOnceAndOnlyNewOrChangedOnesChangeAGroup() throws {
        let store = try StateStore(paths: temporaryPaths())
        let records = AdapterRecords(store: store, space: shared)
        try commit(store, [record("2024-06-01", 1), record("2024-06-01", 2, shelf: 3), record("2024-06-01", 1), record("2024-06-02", 1)])
        #expect(try records.changedGroups() == ["2024-06-01", "2024-06-02"])
        let day = try records.group("2024-06-01")
        #expect(Set(day.records) == [record("2024-06-01", 1), record("2024-06-01", 2, shelf: 3)] && day.changes == 2 && day.settled == nil)

        try commit(store, [], settled: ["2024-06-01": SettledGroup(state: Array("day:2024-06-01\tv1\n".utf8), changes: 2),
                                       "2024-06-02": SettledGroup(state: [], changes: 1)])
        #expect(try records.changedGroups().isEmpty)
        #expect(try records.group("2024-06-01").settled == Array("day:2024-06-01\tv1\n".utf8))

        // Another instance of the type (another export) repeating the same records changes nothing.
        try commit(store, [record("2024-06-01", 2, shelf: 3), record("2024-06-02", 1)], adapter: "health-old-phone")
        #expect(try records.changedGroups().isEmpty)
        // Other spaces are apart.
        #expect(try AdapterRecords(store: store, space: StateStore.space(type: "other")).changedGroups().isEmpty)
        // A corrected value replaces the old one and changes its group.
        try commit(store, [record("2024-06-02", 1, value: 7)])
        #expect(try records.changedGroups() == ["2024-06-02"])
        #expect(try records.group("2024-06-02").records == [record("2024-06-02", 1, value: 7)])
    }

    /// A run of one group longer than one insert statement (32 rows), on several shelves, with a
    /// key repeated inside the run: every record lands, counted once each, the later value kept.
    @Test func aLongRunOfOneGroupIsStoredWholeAndCountedOncePerRecord() throws {
        let store = try StateStore(paths: temporaryPaths())
        let records = AdapterRecords(store: store, space: shared)
        let run = (0..<75).map { record("2024-06-01", UInt8($0), shelf: UInt8($0 % 3)) }
        try commit(store, run + [record("2024-06-02", 1), record("2024-06-01", 5, value: 4, shelf: 2)])
        let day = try records.group("2024-06-01")
        #expect(day.records.count == 75 && day.changes == 76)
        #expect(day.records.first { $0.key == [1, 5] }?.value == [4])
        try commit(store, run, settled: ["2024-06-01": SettledGroup(state: [], changes: 76)])
        #expect(try records.group("2024-06-01").changes == 1)   // only the value put back changed
    }

    @Test func recordsThatArriveWhileAGroupIsDerivedKeepItChanged() throws {
        let store = try StateStore(paths: temporaryPaths())
        let records = AdapterRecords(store: store, space: shared)
        try commit(store, [record("2024-06-01", 1)])
        let read = try records.group("2024-06-01")
        try commit(store, [record("2024-06-01", 2)])                 // e.g. `watch` storing a new export
        try commit(store, [], settled: ["2024-06-01": SettledGroup(state: [], changes: read.changes)])
        #expect(try records.changedGroups() == ["2024-06-01"])
    }

    @Test func resetForgetsWhatWasSettledButKeepsTheRecords() throws {
        let store = try StateStore(paths: temporaryPaths())
        let records = AdapterRecords(store: store, space: shared)
        try commit(store, [record("2024-06-01", 1)])
        try commit(store, [], settled: ["2024-06-01": SettledGroup(state: [7], changes: 1)])
        try store.resetSettled(space: shared)
        #expect(try records.changedGroups() == ["2024-06-01"])
        let day = try records.group("2024-06-01")
        #expect(day.settled == nil && day.records == [record("2024-06-01", 1)])
        try commit(store, [], settled: ["2024-06-01": SettledGroup(state: [7], changes: day.changes)])
        try store.resetAllAnchors()                                   // pairing with another node does the same
        #expect(try records.changedGroups() == ["2024-06-01"])
    }

    @Test func aJournalIsReadByRangeRewrittenInPlaceCutOffAndKeptAcrossAResync() throws {
        let store = try StateStore(paths: temporaryPaths())
        let space = StateStore.space(instance: "gps")
        let records = AdapterRecords(store: store, space: space)
        func entry(_ t: Double, _ data: [UInt8]) -> StateRecord { StateRecord(group: "journal", key: StateRecord.orderedKey(t), value: data) }
        try store.commit(adapter: "gps", source: "linux-gpsd", items: [], anchor: AnchorUpdate(updates: ["last": Data([1])]),
                         records: RecordChanges(records: [entry(100, [1]), entry(160, [2])]), space: space)
        try store.commit(adapter: "gps", source: "linux-gpsd", items: [], anchor: .none, records: RecordChanges(records: [entry(160, [2, 3])]), space: space)
        #expect(try records.records(in: "journal").map(\.value) == [[1], [2, 3]])
        #expect(try records.records(in: "journal", from: StateRecord.orderedKey(150)).map(\.value) == [[2, 3]])
        #expect(try AdapterRecords(store: store, space: StateStore.space(instance: "other")).records(in: "journal").isEmpty)
        try store.resetAnchor(for: "gps")
        #expect(try store.anchor(for: "gps").isEmpty)
        #expect(try records.records(in: "journal").count == 2, "resync re-derives from the journal, so it must survive")
        let prune = RecordChanges(cutoffs: [RecordCutoff(group: "journal", below: StateRecord.orderedKey(150))])
        try store.commit(adapter: "gps", source: "linux-gpsd", items: [], anchor: .none, records: prune, space: space)
        #expect(try records.records(in: "journal").map(\.value) == [[2, 3]])
    }

    /// Records that collect values under one key (a merge given): a key written again, in a
    /// later commit or twice in one, takes the merge of the values; one that leaves the stored
    /// value as it was changes nothing. A shelf's groups are listed without their records.
    @Test func aMergeCombinesAKeyWrittenAgainAndAnUnchangedResultChangesNothing() throws {
        let store = try StateStore(paths: temporaryPaths())
        let records = AdapterRecords(store: store, space: shared)
        // The value is a set of bytes: the union, sorted.
        let union: RecordMerge = { written, stored in Array(Set(written.value + stored)).sorted() }
        func commit(_ written: [StateRecord]) throws {
            try store.commit(adapter: "health", source: "linux-health", items: [], anchor: .none,
                             records: RecordChanges(records: written, merge: union), space: shared)
        }
        try commit([record("2024-06-01", 1, value: 3), record("2024-06-01", 1, value: 1), record("2024-06-02", 1, value: 5, shelf: 4)])
        #expect(try records.group("2024-06-01").records == [StateRecord(group: "2024-06-01", key: [1, 1], value: [1, 3])])
        #expect(try records.group("2024-06-01").changes == 1, "a key written twice in one commit is one new record")
        try commit([record("2024-06-01", 1, value: 2)])
        #expect(try records.group("2024-06-01").records.map(\.value) == [[1, 2, 3]] && records.group("2024-06-01").changes == 2)
        try commit([record("2024-06-01", 1, value: 3), record("2024-06-02", 1, value: 5, shelf: 4)])
        #expect(try records.group("2024-06-01").changes == 2 && records.group("2024-06-02").changes == 1, "nothing new: unchanged")
        #expect(try records.groups(onShelf: 0) == ["2024-06-01"] && records.groups(onShelf: 4) == ["2024-06-02"])
        #expect(try records.groups(onShelf: 5).isEmpty)
    }

    @Test func orderedKeysSortAsTheirNumbersAndRoundTrip() {
        let numbers: [Double] = [-.infinity, -1e300, -2.5, -0.0, 0, 1e-300, 1, 1_717_225_200.25, 4e9, .infinity]
        let keys = numbers.map(StateRecord.orderedKey)
        #expect(keys == keys.sorted { $0.lexicographicallyPrecedes($1) })
        #expect(keys.map { StateRecord.number(fromOrderedKey: $0) } == numbers)
        #expect(StateRecord.number(fromOrderedKey: [1, 2]) == nil)
    }

    @Test func recordsFromAnAdapterThatDeclaredNoneAreRefusedAndNothingIsCommitted() throws {
        let store = try StateStore(paths: temporaryPaths())
        let records = RecordChanges(records: [record("x", 1)])
        #expect(throws: StoreError.self) {
            try store.commit(adapter: "photos", source: "linux-photos", items: [], anchor: AnchorUpdate(updates: ["file": Data([1])]), records: records)
        }
        #expect(try store.anchor(for: "photos").isEmpty)
        #expect(throws: RecordScopeError.self) { try AdapterRecords(store: store, space: nil).changedGroups() }
    }

    @Test func aPreviewCopiesOnlyItsAdaptersStateAndLeavesTheStoreAsItWas() throws {
        let paths = temporaryPaths()
        let store = try StateStore(paths: paths)
        try commit(store, [record("2024-06-01", 1)])
        try store.commit(adapter: "photos", source: "linux-photos", items: [], anchor: AnchorUpdate(updates: ["a": Data([1])]))
        store.db.close()
        // The database and the WAL that closing leaves (see SQLiteDatabase.walKeptAtClose).
        let contents = { try [paths.stateDatabase, paths.stateDatabase + "-wal"].map { try Data(contentsOf: URL(fileURLWithPath: $0)) } }
        let before = try contents()
        let files = try FileManager.default.contentsOfDirectory(atPath: paths.stateDir).sorted()

        let preview = try PreviewStore(copying: paths, adapters: [("health", shared)])
        let records = AdapterRecords(store: preview.store, space: shared)
        #expect(try records.group("2024-06-01").records == [record("2024-06-01", 1)])
        #expect(try preview.store.anchor(for: "photos").isEmpty, "only the scanned adapters' state is copied")
        try preview.store.commit(adapter: "health", source: "linux-health", items: [], anchor: AnchorUpdate(updates: ["f": Data([2])]),
                                 records: RecordChanges(records: [record("2024-06-02", 1)]), space: shared)
        #expect(try records.changedGroups() == ["2024-06-01", "2024-06-02"], "the preview reads back what it wrote")

        #expect(try contents() == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: paths.stateDir).sorted() == files)
        let reopened = try StateStore(paths: paths)
        #expect(try AdapterRecords(store: reopened, space: shared).group("2024-06-02").records.isEmpty)
    }

    @Test func aVersion3StoreKeepsItsJournalAndSamplesAsRecords() throws {
        let paths = temporaryPaths()
        let old = try StateStore(paths: paths)
        // Turn it back into what version 3 wrote, with one fix chunk and one sample in a settled day.
        try old.db.execute("""
            DROP TABLE records; DROP TABLE record_groups;
            CREATE TABLE journal(adapter TEXT NOT NULL, t REAL NOT NULL, data BLOB NOT NULL, PRIMARY KEY(adapter, t)) WITHOUT ROWID;
            CREATE TABLE samples(source TEXT NOT NULL, lane INTEGER NOT NULL, bucket TEXT NOT NULL, key BLOB NOT NULL,
                value BLOB NOT NULL, PRIMARY KEY(source, lane, bucket, key)) WITHOUT ROWID;
            CREATE TABLE sample_buckets(source TEXT NOT NULL, bucket TEXT NOT NULL, dirt INTEGER NOT NULL DEFAULT 0, sent BLOB,
                PRIMARY KEY(source, bucket)) WITHOUT ROWID;
            INSERT INTO journal VALUES('gps', 1717225200.5, x'0102');
            INSERT INTO samples VALUES('linux-health', 4, '2024-06-01', x'0101', x'09');
            INSERT INTO sample_buckets VALUES('linux-health', '2024-06-01', 0, x'07');
            PRAGMA user_version = 3;
            """)
        old.db.close()
        let store = try StateStore(paths: paths)
        let journal = try AdapterRecords(store: store, space: StateStore.space(instance: "gps")).records(in: "journal")
        #expect(journal.map(\.value) == [[1, 2]] && journal.map { StateRecord.number(fromOrderedKey: $0.key) } == [1_717_225_200.5])
        let day = try AdapterRecords(store: store, space: shared).group("2024-06-01")
        #expect(day.records == [record("2024-06-01", 1, shelf: 4)] && day.settled == [7] && day.changes == 0)
        #expect(try store.db.withConnection { (c) throws(SQLiteError) -> Int64 in
            try c.scalar("SELECT count(*) FROM sqlite_master WHERE name IN ('journal', 'samples', 'sample_buckets')")
        } == 0)
    }

    /// New stores take 16 KiB pages; one made with SQLite's 4 KiB (an older build) keeps them and
    /// its records, and still takes new ones.
    @Test func aStoreKeepsThePageSizeItWasMadeWith() throws {
        func pageSize(_ store: StateStore) throws -> Int64 {
            try store.db.withConnection { (c) throws(SQLiteError) -> Int64 in try c.scalar("PRAGMA page_size") }
        }
        #expect(try pageSize(StateStore(paths: temporaryPaths())) == 16_384)
        let paths = temporaryPaths()
        try FileManager.default.createDirectory(atPath: paths.stateDir, withIntermediateDirectories: true)
        let old = try SQLiteDatabase(path: paths.stateDatabase)
        try old.execute("PRAGMA page_size=4096; PRAGMA journal_mode=WAL; CREATE TABLE older(x)")
        old.close()
        let store = try StateStore(paths: paths)
        try commit(store, [record("2024-06-01", 1)])
        store.db.close()
        let reopened = try StateStore(paths: paths)
        #expect(try pageSize(reopened) == 4096)
        #expect(try AdapterRecords(store: reopened, space: shared).group("2024-06-01").records == [record("2024-06-01", 1)])
    }
}
