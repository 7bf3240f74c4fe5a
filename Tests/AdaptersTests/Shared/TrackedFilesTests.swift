import Foundation
import IngestCore
import Synchronization
import Testing
@testable import Adapters

/// TrackedFiles against real files in a temporary tree: what is re-read, what is queued, and when
/// tombstones go out.
struct TrackedFilesTests {
    /// A toy format: one item per line, `key version`; a line `!` makes the whole file fail.
    /// Streamed, each line's item is handed over as read, and `!` fails the file after those before it.
    final class Parser: Sendable {
        let calls = Atomic<Int>(0)
        let refreshAfter: Date?
        let streams: Bool
        init(refreshAfter: Date? = nil, streams: Bool = false) { self.refreshAfter = refreshAfter; self.streams = streams }

        func parse(_ path: String, _ bytes: [UInt8]) -> TrackedFiles.Parse {
            calls.add(1, ordering: .relaxed)
            let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n")
            @Sendable func item(_ line: Substring) -> Item {
                let f = line.split(separator: " ")
                return Item(endpoint: .contacts, key: String(f[0]), version: String(f[1]), fields: ["full_name": .string(String(f[0]))])
            }
            let refreshAfter = refreshAfter
            guard streams else {
                if lines.contains("!") { return .failed("not this format") }
                return .parsed(TrackedFiles.FileItems(lines.map(item)), warnings: [], refreshAfter: refreshAfter)
            }
            return .streamed(parts: lines.count) { deliver in
                for line in lines.dropLast() {
                    if line == "!" { return .failed("not this format") }
                    deliver(TrackedFiles.FileItems([item(line)]))
                }
                return .parsed(TrackedFiles.FileItems(lines.suffix(1).map(item)), warnings: ["\(lines.count) lines"], refreshAfter: refreshAfter)
            }
        }
    }

    let root: String
    init() throws {
        root = NSTemporaryDirectory() + "tracked-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: root + "/book/sub", withIntermediateDirectories: true)
    }

    func write(_ name: String, _ text: String) throws { try text.write(toFile: root + "/" + name, atomically: false, encoding: .utf8) }

    func tracker(_ roots: [String]? = nil) -> TrackedFiles {
        TrackedFiles(roots: roots ?? [root + "/book"], excludes: [], accepts: { $0.hasSuffix(".txt") })
    }

    func scan(_ tracker: TrackedFiles, _ parser: Parser, after sink: CollectingSink? = nil, now: Date = Date()) async throws -> CollectingSink {
        let next = sink?.next() ?? CollectingSink()
        try await tracker.scan(since: next.anchor, into: next, now: now, parse: parser.parse)
        return next
    }

    func summary(_ items: [Item]) -> [String] {
        items.map { $0.deleted ? "-\($0.key)" : "\($0.key)@\($0.version ?? "")" }.sorted()
    }

    @Test func anUnchangedTreeIsNotReadAndAnEditQueuesOnlyWhatChanged() async throws {
        try write("book/a.txt", "alice 1\nbob 1\n")
        try write("book/sub/b.txt", "carol 1\n")
        try write("book/ignored.dat", "zed 1\n")
        let parser = Parser()
        let first = try await scan(tracker(), parser)
        #expect(summary(first.items) == ["alice@1", "bob@1", "carol@1"])

        let second = try await scan(tracker(), parser, after: first)
        #expect(second.items.isEmpty)
        #expect(parser.calls.load(ordering: .relaxed) == 2, "an unchanged file must not be parsed again")

        // Touched but not edited: read and hashed, not parsed, nothing queued.
        try write("book/sub/b.txt", "carol 1\n")
        let touched = try await scan(tracker(), parser, after: second)
        #expect(touched.items.isEmpty)
        #expect(parser.calls.load(ordering: .relaxed) == 2)

        // bob edited, alice removed, dave added.
        try write("book/a.txt", "bob 2\ndave 1\n")
        let edited = try await scan(tracker(), parser, after: touched)
        #expect(summary(edited.items) == ["-alice", "bob@2", "dave@1"])
    }

    @Test func adoptingCopies_aMoveOrACopyIsNotParsedAndSendsNothing_andTheLastCopyGoneIsATombstone() async throws {
        try write("book/a.txt", "alice 1\n")
        var tracker = tracker()
        tracker.adoptsCopies = true
        let parser = Parser()
        let first = try await scan(tracker, parser)
        #expect(summary(first.items) == ["alice@1"])

        try FileManager.default.moveItem(atPath: root + "/book/a.txt", toPath: root + "/book/sub/moved.txt")
        try write("book/copy.txt", "alice 1\n")
        let moved = try await scan(tracker, parser, after: first)
        #expect(moved.items.isEmpty, "a moved file and a copy of it send nothing")
        #expect(parser.calls.load(ordering: .relaxed) == 1, "neither is parsed")

        try FileManager.default.removeItem(atPath: root + "/book/sub/moved.txt")
        let oneLeft = try await scan(tracker, parser, after: moved)
        #expect(oneLeft.items.isEmpty, "a copy still holds the key")
        try FileManager.default.removeItem(atPath: root + "/book/copy.txt")
        let gone = try await scan(tracker, parser, after: oneLeft)
        #expect(summary(gone.items) == ["-alice"])

        // Copies new to the same scan: only the first batch's is parsed.
        tracker.readBatch = 1
        for name in ["x1", "x2", "x3"] { try write("book/\(name).txt", "xavier 1\n") }
        let fresh = try await scan(tracker, parser, after: gone)
        #expect(summary(fresh.items) == ["xavier@1"])
        #expect(parser.calls.load(ordering: .relaxed) == 2)
    }

    @Test func aDeletedFileSendsTombstonesExceptForKeysAnotherFileStillHas() async throws {
        try write("book/a.txt", "alice 1\nbob 1\n")
        try write("book/sub/b.txt", "bob 1\n")
        let parser = Parser()
        let first = try await scan(tracker(), parser)
        #expect(summary(first.items) == ["alice@1", "bob@1", "bob@1"])
        try FileManager.default.removeItem(atPath: root + "/book/a.txt")
        let second = try await scan(tracker(), parser, after: first)
        #expect(summary(second.items) == ["-alice"])
        #expect(second.anchor.entries.keys.sorted() == [TrackedFiles.prefix + root + "/book/sub/b.txt"])
        // A whole sub-folder removed: its files are gone too.
        try FileManager.default.removeItem(atPath: root + "/book/sub")
        let third = try await scan(tracker(), parser, after: second)
        #expect(summary(third.items) == ["-bob"])
        #expect(third.anchor.isEmpty)
    }

    @Test func aFileThatFailsOrAMissingRootIsNotTakenAsDeleted() async throws {
        try write("book/a.txt", "alice 1\n")
        let parser = Parser()
        let first = try await scan(tracker(), parser)
        try write("book/a.txt", "alice 2\n!\n")
        let broken = try await scan(tracker(), parser, after: first)
        #expect(broken.items.isEmpty)
        #expect(broken.warnings == ["\(root)/book/a.txt: not this format"])

        try FileManager.default.moveItem(atPath: root + "/book", toPath: root + "/elsewhere")
        let missing = try await scan(tracker(), parser, after: broken)
        #expect(missing.items.isEmpty, "an unmounted or renamed folder must not delete everything")
        #expect(missing.warnings.count == 1 && missing.warnings[0].hasPrefix("\(root)/book: "))
        #expect(missing.anchor.entries.count == 1)

        // Dropped from Path= altogether: its items are gone.
        try FileManager.default.moveItem(atPath: root + "/elsewhere", toPath: root + "/book")
        let dropped = try await scan(tracker([root + "/book/sub"]), parser, after: missing)
        #expect(summary(dropped.items) == ["-alice"])
    }

    /// Items handed over while the file is parsed are all queued and recorded; a parse that fails
    /// midway keeps the old record (its items get no tombstone) and is read again next time.
    @Test func aStreamedParseRecordsItsItems_andOneThatFailsMidwayKeepsTheOldRecord() async throws {
        let lines = (0..<2000).map { "k\($0) 1\n" }
        try write("book/a.txt", lines.joined())
        let parser = Parser(streams: true)
        let first = try await scan(tracker(), parser)
        #expect(first.items.count == 2000)
        #expect(first.warnings == ["\(root)/book/a.txt: 2000 lines"])
        try write("book/a.txt", "k0 2\n!\n" + lines.dropFirst(2).joined())
        let broken = try await scan(tracker(), parser, after: first)
        #expect(summary(broken.items) == ["k0@2"], "the items before the failure are queued; nothing is a tombstone")
        #expect(broken.warnings == ["\(root)/book/a.txt: not this format"])
        let again = try await scan(tracker(), parser, after: broken)
        #expect(parser.calls.load(ordering: .relaxed) == 3, "a file whose parse failed midway is read again")
        #expect(summary(again.items) == ["k0@2"])
        try write("book/a.txt", lines.dropFirst(1).joined())
        let fixed = try await scan(tracker(), parser, after: again)
        #expect(summary(fixed.items) == ["-k0"], "only the key the file no longer gives is lost")
    }

    /// A new file whose streamed parse fails midway is remembered as a new file that fails whole
    /// is: not read again until it changes, and the items it gave get tombstones once it is gone.
    @Test func aNewFileWhoseStreamedParseFailsMidwayIsNotReadAgainAndItsItemsCanBeDeleted() async throws {
        try write("book/a.txt", (0..<1000).map { "k\($0) 1\n" }.joined() + "!\n" + (1000..<1500).map { "k\($0) 1\n" }.joined())
        let parser = Parser(streams: true)
        let first = try await scan(tracker(), parser)
        #expect(first.items.count == 1000, "the parts handed over before the failure are queued")
        #expect(first.warnings == ["\(root)/book/a.txt: not this format"])
        let again = try await scan(tracker(), parser, after: first)
        #expect(parser.calls.load(ordering: .relaxed) == 1 && again.items.isEmpty && again.warnings.isEmpty)
        try FileManager.default.removeItem(atPath: root + "/book/a.txt")
        let gone = try await scan(tracker(), parser, after: again)
        #expect(gone.items.count == 1000 && gone.items.allSatisfy { $0.deleted })
    }

    @Test func aFileNamedInPathIsTrackedAndItsRemovalIsADeletion() async throws {
        try write("single.txt", "erin 1\n")
        let parser = Parser()
        let first = try await scan(tracker([root + "/single.txt"]), parser)
        #expect(summary(first.items) == ["erin@1"])
        try FileManager.default.removeItem(atPath: root + "/single.txt")
        let second = try await scan(tracker([root + "/single.txt"]), parser, after: first)
        #expect(summary(second.items) == ["-erin"])
        #expect(second.warnings.count == 1)
    }

    @Test func aRefreshDateMakesAnUnchangedFileParseAgainOnceItPasses() async throws {
        try write("book/a.txt", "alice 1\n")
        let now = Date()
        let parser = Parser(refreshAfter: now.addingTimeInterval(3600))
        let first = try await scan(tracker(), parser, now: now)
        _ = try await scan(tracker(), parser, after: first, now: now.addingTimeInterval(60))
        #expect(parser.calls.load(ordering: .relaxed) == 1)
        _ = try await scan(tracker(), parser, after: first, now: now.addingTimeInterval(7200))
        #expect(parser.calls.load(ordering: .relaxed) == 2)
    }

    @Test func aFileOverTheSizeLimitIsSkippedWithAWarning() async throws {
        try write("book/a.txt", String(repeating: "x 1\n", count: 1000))
        var tracker = tracker()
        tracker.maxFileBytes = 1000
        let parser = Parser()
        let sink = try await scan(tracker, parser)
        #expect(sink.items.isEmpty)
        #expect(parser.calls.load(ordering: .relaxed) == 0)
        #expect(sink.warnings.count == 1 && sink.warnings[0].contains("limit"))
    }

    @Test func theRecordSurvivesEncodingWithAwkwardKeys() {
        var record = FileRecord(stamp: FileStamp(size: 5, mtime: 7, inode: 9), hash: "ab",
                                items: [.init(endpoint: .calendar, key: "uid\twith%tab\n/20240101T000000Z"): "v1", .init(endpoint: .reminders, key: "t"): ""])
        record.refreshAfter = Date(timeIntervalSince1970: 1000.5)
        #expect(FileRecord(record.encoded) == record)
    }

    @Test func anItemTableFindsEachKeyAndKeepsTheLaterVersionOfAKeyGivenTwice() {
        var builder = ItemTable.Builder()
        let ids = (0..<300).map { ItemKey(endpoint: $0 % 2 == 0 ? .calendar : .reminders, key: "k\($0 * 7919 % 300)") }
        let added = ids.map { builder.set($0, version: "v-" + $0.key) }
        let again = builder.set(ids[5], version: "later"), inserted = builder.insert(ids[6], version: "ignored")
        #expect(added.allSatisfy { $0 })
        #expect(!again, "a key given again is no new item")
        #expect(!inserted, "insert keeps what is there")
        let table = builder.table()
        #expect(table.count == 300)
        #expect(table.version(of: ids[5]) == "later" && table.version(of: ids[6]) == "v-" + ids[6].key)
        #expect(ids.dropFirst(7).allSatisfy { table.version(of: $0) == "v-" + $0.key })
        #expect(table.version(of: ItemKey(endpoint: .calendar, key: "k1")) == nil, "k1 is a reminder's key")
        #expect(Set(table.keys) == Set(ids))

        let fewer: ItemTable = [ids[0]: "a", ids[1]: "", ItemKey(endpoint: .calendar, key: "new"): "b"]
        #expect(Set(table.keys(notIn: fewer)) == Set(ids.dropFirst(2)))
        #expect(fewer.keys(notIn: table) == [ItemKey(endpoint: .calendar, key: "new")])
        #expect(fewer.version(of: ids[1]) == "", "no version is kept as none")
    }

    @Test func storedLinesOutOfOrderAreSortedAndTheLaterOfTwoLinesOfOneKeyCounts() {
        let lines = ["reminders\tb\t2\n", "calendar\tz\t1\n", "not an endpoint\tx\t1\n", "calendar\ta%09b\t3\n", "calendar\tz\t4\n", "calendar\tshort\n"]
        let record = FileRecord(Data(("v1\t1\t2\t3\th\t-\n" + lines.joined()).utf8))
        #expect(record?.encoded == Data("v1\t1\t2\t3\th\t-\ncalendar\ta%09b\t3\ncalendar\tz\t4\nreminders\tb\t2\n".utf8))
        #expect(record?.items.version(of: ItemKey(endpoint: .calendar, key: "a\tb")) == "3")
    }
}
