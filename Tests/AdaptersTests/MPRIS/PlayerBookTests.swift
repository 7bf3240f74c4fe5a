import Foundation
import IngestCore
import Testing
@testable import Adapters

/// What the books hand over to commit when a player's play counts and ends.
struct PlayerBookTests {
    let rules = PlayRules()
    let song = Track(title: "Song", artists: ["Ann"], album: "LP", length: 100, trackID: "/io/mpv/playlist/0")

    /// Books holding one player, `mpv`, playing `song` from position 0 since 1000.
    func book(clock: WallClockWatch = WallClockWatch()) throws -> PlayerBook {
        var timeline = PlayerTimeline(player: "mpv", identity: "mpv", at: 1000)
        _ = timeline.apply(.track(song, position: 0), at: 1000, rules: rules)
        _ = timeline.apply(.status(.playing, position: 0), at: 1000, rules: rules)
        let anchor = Anchor([PlayerBook.entryPrefix + "mpv": try JSONEncoder().encode(timeline)])
        return PlayerBook(anchor: anchor, rules: rules, filter: PlayerFilter(), clock: clock)
    }

    let name = BusConnection.playerPrefix + "mpv"

    @Test func aPlayEndingWhereItCountedIsNotQueuedTwice() throws {
        var book = try book()
        book.update(name) { t, rules in t.apply(.position(50), at: 1050, rules: rules) }
        let counted = try #require(book.take() as FollowCommit?)
        #expect(counted.items.count == 1 && counted.items[0].fields["played_s"] == 50)
        // mpv quits at once (a fast player, the end of a playlist): nothing new about the play.
        book.update(name) { t, rules in t.apply(.status(.stopped, position: nil), at: 1050, rules: rules) }
        let ended = try #require(book.take() as FollowCommit?)
        #expect(ended.items.isEmpty, "sent again unchanged: \(ended.items)")
        #expect(ended.anchor.removals.contains { $0.hasPrefix(PlayLedger.entryPrefix) }, "the play's books close as before")
    }

    @Test func aPlayThatGoesOnAfterItCountedIsSentAgainWhenItEnds() throws {
        var book = try book()
        book.update(name) { t, rules in t.apply(.position(50), at: 1050, rules: rules) }
        let counted = book.take()?.items ?? []
        book.update(name) { t, rules in t.apply(.status(.stopped, position: nil), at: 1090, rules: rules) }
        let ended = book.take()?.items ?? []
        #expect(ended.count == 1 && counted.count == 1 && ended[0].key == counted[0].key && ended[0].fields["played_s"] == 90)
    }

    /// Issue 30's 2-hour soak: two plays under way when the wall clock stepped an hour back never
    /// reached the node. The player's own position says what played; the step must not erase it,
    /// and the play's dates move onto the new clock (no negative duration, nothing in the future).
    @Test(arguments: [-3600.0, 3600.0])
    func aWallClockStepMidPlayKeepsThePlayedTimeAndMovesTheDates(step: Double) throws {
        let clock = Locked(WallClockWatch.Reading(wall: 1000, sinceBoot: 50))
        var book = try book(clock: WallClockWatch { clock.withLock { $0 } })
        func tick(wall: Double, sinceBoot: Double) -> Double {
            clock.withLock { $0 = .init(wall: wall, sinceBoot: sinceBoot) }
            return book.now()
        }
        #expect(tick(wall: 1000, sinceBoot: 50) == 1000)
        let at20 = tick(wall: 1020, sinceBoot: 70)
        book.update(name) { t, rules in t.apply(.position(20), at: at20, rules: rules) }
        #expect(book.take()?.items.isEmpty ?? true, "20 s of 100: not yet")
        let at60 = tick(wall: 1060 + step, sinceBoot: 110)
        book.update(name) { t, rules in t.apply(.position(60), at: at60, rules: rules) }
        let sent = try #require(book.take()?.items.first)
        #expect(sent.fields["played_s"] == 60, "what it played, not what the clock says")
        #expect(sent.fields["started_at"] == .string(Date(timeIntervalSince1970: 1000 + step).rfc3339))
        #expect(sent.fields["ended_at"] == .string(Date(timeIntervalSince1970: 1060 + step).rfc3339))
    }
}
