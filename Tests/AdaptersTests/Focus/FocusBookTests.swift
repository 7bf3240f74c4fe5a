import Foundation
import IngestCore
import Testing
@testable import Adapters

/// The span rules on their own, with times given by the test.
struct FocusBookTests {
    static let t0 = 1_780_000_000.0

    /// Commits `book`'s pending changes onto `anchor`, returning the items.
    static func take(_ book: inout FocusBook, into anchor: inout Anchor) -> [Item] {
        guard let commit = book.take() else { return [] }
        for key in commit.anchor.removals { anchor.entries.removeValue(forKey: key) }
        anchor.entries.merge(commit.anchor.updates) { _, new in new }
        return commit.items
    }

    @Test func aSpanIsSentOnceItLastedMinSpanThenWithItsEnd_flickerNever() {
        var anchor = Anchor()
        var book = FocusBook(anchor: anchor, minSpan: 5)
        book.set(.screensaver, true, at: Self.t0)
        book.set(.screensaver, false, at: Self.t0 + 4)            // flicker
        #expect(Self.take(&book, into: &anchor).isEmpty && anchor.isEmpty)
        book.set(.notifications, true, at: Self.t0 + 10)
        #expect(book.nextDeadline == Self.t0 + 15)
        book.tick(at: Self.t0 + 15)
        let open = Self.take(&book, into: &anchor)
        #expect(open.count == 1 && open[0].fields["end"] == .null && open[0].fields["via"] == "kde")
        book.set(.notifications, false, at: Self.t0 + 70)
        let closed = Self.take(&book, into: &anchor)
        #expect(closed.map(\.key) == open.map(\.key) && closed[0].version != open[0].version)
        #expect(closed[0].fields["end"] == .string(Date(timeIntervalSince1970: Self.t0 + 70).rfc3339))
        #expect(anchor.isEmpty, "nothing open is kept")
    }

    /// A step `watch` did not see (it happened between two timer runs).
    @Test func aSpanWhoseClockSteppedBackEndsWhereItBegan() {
        var anchor = Anchor()
        var book = FocusBook(anchor: anchor, minSpan: 0)
        book.set(.notifications, true, at: Self.t0)                 // MinSpan 0: sent open at once
        let open = Self.take(&book, into: &anchor)
        book.set(.notifications, false, at: Self.t0 + 8 - 3600)    // the wall clock went an hour back meanwhile
        let closed = Self.take(&book, into: &anchor)
        #expect(closed.map(\.key) == open.map(\.key))
        #expect(closed.first?.fields["end"] == closed.first?.fields["start"], "not an hour before its start: \(closed)")
    }

    /// The same step while `watch` looks: the span keeps its key and its true length, and its
    /// start moves onto the new clock.
    @Test(arguments: [-3600.0, 3600.0])
    func aSpanThroughAWatchedClockStepKeepsItsKeyAndLength(step: Double) {
        let clock = Locked(WallClockWatch.Reading(wall: Self.t0, sinceBoot: 100))
        var anchor = Anchor()
        var book = FocusBook(anchor: anchor, minSpan: 0, clock: WallClockWatch { clock.withLock { $0 } })
        func tick(_ wall: Double, _ sinceBoot: Double) -> Double {
            clock.withLock { $0 = .init(wall: wall, sinceBoot: sinceBoot) }
            return book.now()
        }
        let on = tick(Self.t0, 100)
        book.set(.notifications, true, at: on)
        let open = Self.take(&book, into: &anchor)
        let off = tick(Self.t0 + 8 + step, 108)
        book.set(.notifications, false, at: off)
        let closed = Self.take(&book, into: &anchor)
        #expect(open.count == 1 && closed.map(\.key) == open.map(\.key))
        #expect(closed.first?.fields["start"] == .string(Date(timeIntervalSince1970: Self.t0 + step).rfc3339))
        #expect(closed.first?.fields["end"] == .string(Date(timeIntervalSince1970: Self.t0 + step + 8).rfc3339))
    }

    @Test func twoSourcesOfOneModeAreOneSpan_itsViaTheFirst() {
        var anchor = Anchor()
        var book = FocusBook(anchor: anchor, minSpan: 0)
        book.set(.screensaver, true, at: Self.t0)
        book.set(.logindLocked, true, at: Self.t0 + 1)
        book.set(.screensaver, false, at: Self.t0 + 30)
        #expect(Self.take(&book, into: &anchor).count == 1, "still locked for logind")
        book.set(.logindLocked, false, at: Self.t0 + 31)
        let items = Self.take(&book, into: &anchor)
        #expect(items.count == 1 && items[0].fields["via"] == "screensaver")
        #expect(items[0].fields["end"] == .string(Date(timeIntervalSince1970: Self.t0 + 31).rfc3339))
    }

    @Test func aCarriedSpanGoesOnWhenStillOn_andEndsWhereLastSeenWhenNot() {
        var anchor = Anchor()
        var book = FocusBook(anchor: anchor, minSpan: 5)
        book.set(.notifications, true, at: Self.t0)
        book.tick(at: Self.t0 + 6)
        let open = Self.take(&book, into: &anchor)
        book.touch(at: Self.t0 + 100)                               // watch stops
        _ = Self.take(&book, into: &anchor)
        // Restarted, still on: the same span, nothing new to send.
        var again = FocusBook(anchor: anchor, minSpan: 5)
        again.set(.notifications, true, at: Self.t0 + 200)
        again.closeStale()
        again.touch(at: Self.t0 + 200)                               // and stops again
        #expect(Self.take(&again, into: &anchor).isEmpty, "no item: the span goes on")
        // Restarted, now off: closed at the last moment it was known on.
        var anchor2 = anchor
        var later = FocusBook(anchor: anchor2, minSpan: 5)
        later.closeStale()
        let closed = Self.take(&later, into: &anchor2)
        #expect(closed.map(\.key) == open.map(\.key))
        #expect(closed.first?.fields["end"] == .string(Date(timeIntervalSince1970: Self.t0 + 200).rfc3339))
        #expect(anchor2.isEmpty)
    }
}
