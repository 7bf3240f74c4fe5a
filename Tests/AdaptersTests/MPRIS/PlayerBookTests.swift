import Foundation
import IngestCore
import Testing
@testable import Adapters

/// What the books hand over to commit when a player's play counts and ends.
struct PlayerBookTests {
    let rules = PlayRules()
    let song = Track(title: "Song", artists: ["Ann"], album: "LP", length: 100, trackID: "/io/mpv/playlist/0")

    /// Books holding one player, `mpv`, playing `song` from position 0 since 1000.
    func book() throws -> PlayerBook {
        var timeline = PlayerTimeline(player: "mpv", identity: "mpv", at: 1000)
        _ = timeline.apply(.track(song, position: 0), at: 1000, rules: rules)
        _ = timeline.apply(.status(.playing, position: 0), at: 1000, rules: rules)
        let anchor = Anchor([PlayerBook.entryPrefix + "mpv": try JSONEncoder().encode(timeline)])
        return PlayerBook(anchor: anchor, rules: rules, filter: PlayerFilter())
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
}
