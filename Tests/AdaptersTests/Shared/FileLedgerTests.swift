import Foundation
import IngestCore
import Synchronization
import Testing
@testable import Adapters

/// The ledger on its own: entries are made-up bytes (their keys, one a line), so what is tested is
/// only when tombstones go out and how commits are cut.
struct FileLedgerTests {
    /// Records each commit's size; the anchor it would leave is applied as a store would.
    final class CommitLog: ItemSink {
        private let state = Locked((commits: [(items: Int, updates: Int)](), items: [Item](), anchor: Anchor()))
        init(anchor: Anchor = Anchor()) { state.withLock { $0.anchor = anchor } }

        func commit(_ items: [Item], anchor changes: AnchorUpdate) async throws {
            state.withLock { s in
                s.commits.append((items.count, changes.updates.count))
                s.items += items
                for key in changes.removals { s.anchor.entries[key] = nil }
                for (key, value) in changes.updates { s.anchor.entries[key] = value }
            }
        }
        func warn(_ message: String) async {}

        var commits: [(items: Int, updates: Int)] { state.withLock { $0.commits } }
        var items: [Item] { state.withLock { $0.items } }
        var anchor: Anchor { state.withLock { $0.anchor } }
    }

    static func keys(_ names: String...) -> [ItemKey] { names.map { ItemKey(endpoint: .contacts, key: $0) } }
    static func entry(_ keys: [ItemKey]) -> Data { Data(keys.map(\.key).joined(separator: "\n").utf8) }
    static func keys(in entry: Data) -> [ItemKey] {
        String(decoding: entry, as: UTF8.self).split(separator: "\n").map { ItemKey(endpoint: .contacts, key: String($0)) }
    }
    static func anchor(_ entries: [String: [ItemKey]]) -> Anchor {
        Anchor(Dictionary(uniqueKeysWithValues: entries.map { ("f:" + $0.key, entry($0.value)) }))
    }
    func ledger(_ sink: CommitLog, itemsPerChunk: Int = 100, entriesPerChunk: Int = 100) -> FileLedger<CommitLog> {
        FileLedger(anchor: sink.anchor, prefix: "f:", into: sink, itemsPerChunk: itemsPerChunk, entriesPerChunk: entriesPerChunk)
    }
    func tombstones(_ sink: CommitLog) -> [String] { sink.items.filter(\.deleted).map(\.key).sorted() }

    @Test func aKeyGetsItsTombstoneOnlyWhenTheLastCopyGoes() async throws {
        let sink = CommitLog(anchor: Self.anchor(["a": Self.keys("alice", "bob"), "b": Self.keys("bob"), "c": Self.keys("carol")]))
        var first = ledger(sink)
        first.remove("a", keys: Self.keys("alice", "bob"))
        try await first.finish(keysOfUntouched: { _, entry in Self.keys(in: entry) })
        #expect(tombstones(sink) == ["alice"], "b still holds bob")

        var second = ledger(sink)
        second.remove("b", keys: Self.keys("bob"))
        try await second.finish(keysOfUntouched: { _, entry in Self.keys(in: entry) })
        #expect(tombstones(sink) == ["alice", "bob"])
        #expect(sink.anchor.entries.keys.sorted() == ["f:c"])
    }

    @Test func aKeyAnEditedEntryLosesIsKeptAliveByAnotherEntry() async throws {
        let sink = CommitLog(anchor: Self.anchor(["a": Self.keys("alice", "bob"), "b": Self.keys("bob")]))
        var ledger = ledger(sink)
        ledger.write("a", Self.entry(Self.keys("alice")), keys: Self.keys("alice"))
        ledger.lose(Self.keys("bob"))
        try await ledger.finish(keysOfUntouched: { _, entry in Self.keys(in: entry) })
        #expect(tombstones(sink).isEmpty)
    }

    @Test func aMoveSendsNothing() async throws {
        let sink = CommitLog(anchor: Self.anchor(["old/a": Self.keys("alice")]))
        var ledger = ledger(sink)
        ledger.remove("old/a", keys: Self.keys("alice"))
        ledger.write("new/a", Self.entry(Self.keys("alice")), keys: Self.keys("alice"))
        try await ledger.finish(keysOfUntouched: { _, entry in Self.keys(in: entry) })
        #expect(sink.items.isEmpty)
        #expect(sink.anchor.entries.keys.sorted() == ["f:new/a"])
    }

    @Test func entriesOfAnotherLayoutAreRemovedWithTheFirstCommit() async throws {
        let sink = CommitLog(anchor: Anchor(["f:a": Self.entry(Self.keys("alice")), "old-layout": Data()]))
        var ledger = ledger(sink)
        #expect(ledger.stored.keys.sorted() == ["a"])
        try await ledger.finish()
        #expect(sink.anchor.entries.keys.sorted() == ["f:a"])
    }

    @Test func commitsAreCutByItemsAndByEntriesAndKeepTheirOrder() async throws {
        let sink = CommitLog()
        var ledger = ledger(sink, itemsPerChunk: 2, entriesPerChunk: 3)
        for i in 0..<5 {
            ledger.queue(Item(endpoint: .contacts, key: "k\(i)", version: "1", fields: [:]))
            try await ledger.commitIfFull()
        }
        for i in 0..<4 {
            ledger.write("e\(i)", Data(), keys: [])
            try await ledger.commitIfFull()
        }
        try await ledger.commit([], anchor: AnchorUpdate(updates: ["f:own": Data()]))
        try await ledger.finish()
        #expect(sink.commits.map { "\($0.items)/\($0.updates)" } == ["2/0", "2/0", "1/3", "0/1", "0/1"])
        #expect(sink.items.map(\.key) == ["k0", "k1", "k2", "k3", "k4"])
    }

    @Test func theStampCodecRoundTripsAndWritesWhatStringDoes() {
        for stamp in [FileStamp(size: 0, mtime: 0, inode: 0), FileStamp(size: 1234, mtime: -5, inode: .max),
                      FileStamp(size: .max, mtime: .min, inode: 42), FileStamp(size: 96_000, mtime: 1_717_225_200_123_456_789, inode: 1 << 40)] {
            var out: [UInt8] = []
            stamp.write(into: &out)
            #expect(String(decoding: out, as: UTF8.self) == "\(stamp.size)\t\(stamp.mtime)\t\(stamp.inode)")
            let f = out[...].split(separator: 0x09, omittingEmptySubsequences: false)
            #expect(FileStamp(size: f[0], mtime: f[1], inode: f[2]) == stamp)
        }
        let bad = ["", "-", "1x", "9223372036854775808", "18446744073709551616", " 1"].map { ArraySlice(Array($0.utf8)) }
        for text in bad { #expect(FileStamp(size: text, mtime: [0x30], inode: [0x30]) == nil, "\(String(decoding: text, as: UTF8.self))") }
        #expect(FileStamp(size: [0x30], mtime: [0x30], inode: ArraySlice("-1".utf8)) == nil)
    }
}
