import Foundation
import IngestCore
import Testing
@testable import Adapters

/// The tracker against a collecting sink: fixes reach the journal however rarely it commits,
/// and a restore from the anchor and journal carries on where the last commit left off.
struct PlaceTrackerTests {
    @Test func everyFixReachesTheJournalAndARestoreClosesTheStaleVisitUnderItsKey() async throws {
        let sink = CollectingSink()
        var (tracker, replayed) = try await PlaceTracker.restore(from: Anchor(), journal: { try JournalEntry.read(sink.records, since: $0) }, settings: .init())
        #expect(replayed.isEmpty)
        let fixes = ScriptedDay.fixes()
        var items: [Item] = []
        for (i, fix) in fixes.enumerated() {
            items += tracker.add(fix, now: fix.time)
            if i % 1000 == 999 || i == fixes.count - 1 { try await tracker.commit(items, into: sink); items = [] }
        }
        let journaled = try JournalEntry.read(sink.records, since: -.infinity).flatMap { Fix.unpack($0.data) }
        #expect(journaled == fixes, "a commit every 1000 fixes still journals each one, once, in order")
        let sent = sink.items
        #expect(sent.filter { $0.endpoint == .location }.count == 5, "3 opened + 2 closed")
        #expect(sent.filter { $0.endpoint == .motion }.count == 2)
        let office = try #require(sent.last { $0.endpoint == .location })
        #expect(office.fields["departure"] == .null)

        // A timer run later: the replay queues nothing twice, and the office visit closes at its last fix.
        let later = sink.next()
        var (restored, again) = try await PlaceTracker.restore(from: later.anchor, journal: { try JournalEntry.read(later.records, since: $0) }, settings: .init())
        #expect(again.isEmpty, "nothing is queued twice after a restore")
        let closing = restored.closeIfStale(now: fixes.last!.time + 3600)
        #expect(closing.map(\.key) == [office.key])
        #expect(closing.first?.fields["departure"] == .string(PlaceItems.time(fixes.last!.time)))
    }

    @Test func aResyncReplaySendsEachVisitOnceInItsLastState() async throws {
        let sink = CollectingSink()
        var (tracker, _) = try await PlaceTracker.restore(from: Anchor(), journal: { try JournalEntry.read(sink.records, since: $0) }, settings: .init())
        for fix in ScriptedDay.fixes() { _ = tracker.add(fix, now: fix.time) }
        try await tracker.commit([], into: sink)
        // resync: the anchor is forgotten, the journal kept.
        let resync = try sink.forgettingAnchor()
        let (_, items) = try await PlaceTracker.restore(from: Anchor(), journal: { try JournalEntry.read(resync.records, since: $0) }, settings: .init())
        let sent = PlaceTracker.latestPerKey(items)
        #expect(sent.filter { $0.endpoint == .location }.map { $0.fields["departure"] == .null } == [false, false, true],
                "home and café closed, the office still open; no open state of a closed visit")
        #expect(sent.filter { $0.endpoint == .motion }.count == 2)
    }

    @Test func aFollowerWhoseCommitsFailKeepsEveryFixAndStoresThemOnceItCan() async throws {
        let fixes = ScriptedDay.fixes()
        let events = AsyncStream<FixSourceEvent> { continuation in
            for fix in fixes { continuation.yield(.fix(fix)) }
            continuation.finish()
        }
        let sink = RefusingSink(refusals: 3, after: 1)   // the restore's commit passes, the next three fail
        try await PlaceTracker.follow(events, from: Anchor(), settings: .init(), into: sink, stop: {})
        let journaled = try JournalEntry.read(sink.collecting.records, since: -.infinity).flatMap { Fix.unpack($0.data) }
        #expect(sink.refused == 3)
        #expect(journaled == fixes, "no fix is dropped when a commit fails")
        #expect(Set(sink.collecting.items.filter { $0.endpoint == .location }.map(\.key)).count == 3)
        #expect(sink.collecting.items.filter { $0.endpoint == .motion }.count == 2)
        #expect(sink.collecting.warnings.filter { $0.hasPrefix("could not store fixes") }.count == 1, "one warning per outage")
    }
}

/// A sink whose commits fail for a while, as a full disk or a locked store makes them.
final class RefusingSink: RecordSink {
    let collecting = CollectingSink()
    private let passing: Locked<Int>
    private let left: Locked<Int>
    private let count = Locked(0)
    init(refusals: Int, after passes: Int) { left = Locked(refusals); passing = Locked(passes) }
    var refused: Int { count.withLock { $0 } }
    var records: AdapterRecords { collecting.records }

    func commit(_ items: [Item], anchor: AnchorUpdate, records: RecordChanges) async throws {
        let passes = passing.withLock { n in n > 0 ? { n -= 1; return true }() : false }
        let refuse = !passes && left.withLock { n in n > 0 ? { n -= 1; return true }() : false }
        if refuse {
            count.withLock { $0 += 1 }
            throw StoreError.misuse("refused on purpose")
        }
        try await collecting.commit(items, anchor: anchor, records: records)
    }
    func warn(_ message: String) async { await collecting.warn(message) }
    func progress(examined: Int, total: Int?) async {}
}
