import Foundation
import IngestCore
import Testing
@testable import Adapters

/// One listen shown by several players is one merged play under one key, on exact clocks.
struct PlayLedgerTests {
    let rules = PlayRules()
    let song = Track(title: "Song", artists: ["Ann"], album: "LP", length: 100, trackID: "/io/mpv/playlist/0")

    /// `player` playing `track` since `start` at rate 1, from position 0.
    func playing(_ player: String, _ track: Track, since start: Double, identity: String? = nil) -> PlayerTimeline {
        var t = PlayerTimeline(player: player, identity: identity ?? player, at: start)
        _ = t.apply(.track(track, position: 0), at: start, rules: rules)
        _ = t.apply(.status(.playing, position: 0), at: start, rules: rules)
        return t
    }

    /// The play `t` reports when its position reads `position` at `now` (it counts there or ends).
    func send(_ t: inout PlayerTimeline, position: Double, at now: Double, stop: Bool = false) throws -> Play {
        let sends = stop ? t.apply(.status(.stopped, position: nil), at: now, rules: rules) : t.apply(.position(position), at: now, rules: rules)
        return try #require(sends.last)
    }

    @Test func twoPlayersStartingSecondsApartMakeOneKeyWhicheverCountsFirst() throws {
        var keys: Set<String> = []
        for firstToCount in ["mpv", "mpv.instance42"] {
            var ledger = PlayLedger()
            var a = playing("mpv", song, since: 1000)
            var b = playing("mpv.instance42", song, since: 1003, identity: "mpv 2")
            let aCounts = try send(&a, position: 50, at: 1050), bCounts = try send(&b, position: 50, at: 1053)
            let order = firstToCount == "mpv" ? [(aCounts, a), (bCounts, b)] : [(bCounts, b), (aCounts, a)]
            let first = ledger.merge(order[0].0, of: order[0].1, among: [a, b])
            let second = ledger.merge(order[1].0, of: order[1].1, among: [a, b])
            #expect(first.key == second.key && ledger.plays.count == 1)
            #expect(second.startedAt == 1000 && second.members == ["mpv": 1000, "mpv.instance42": 1003])
            #expect(second.player == order[0].1.identity, "the player whose play counted first")
            keys.insert(second.key)
        }
        #expect(keys.count == 1, "the key does not depend on which player counted first: \(keys)")
    }

    @Test func theMergedPlayHasTheEarliestStartLatestEndAndMostPlayed() throws {
        var ledger = PlayLedger()
        var a = playing("firefox.instance_1_84", song, since: 1000, identity: "Mozilla Firefox")
        var b = playing("plasma-browser-integration", song, since: 1001, identity: "Plasma Browser Integration")
        _ = ledger.merge(try send(&a, position: 50, at: 1050), of: a, among: [a, b])
        _ = ledger.merge(try send(&b, position: 50, at: 1051), of: b, among: [a, b])
        let aEnds = try send(&a, position: 0, at: 1090, stop: true)                     // a stops at 90 s
        var merged = ledger.merge(aEnds, of: a, among: [a, b])
        #expect(ledger.prune(among: [a, b]).isEmpty, "b still plays it")
        let bEnds = try send(&b, position: 0, at: 1101, stop: true)                     // b plays it to its end
        merged = ledger.merge(bEnds, of: b, among: [a, b])
        #expect(merged.startedAt == 1000 && merged.endedAt == 1101 && abs(merged.played - 100) < 1e-6)
        #expect(merged.player == "Mozilla Firefox" && ledger.plays.count == 1)
        let item = PlayItem.make(merged)
        #expect(item.fields["started_at"] == "1970-01-01T00:16:40Z" && item.fields["ended_at"] == "1970-01-01T00:18:21Z")
        #expect(item.fields["played_s"] == 100 && item.fields["player"] == "Mozilla Firefox")
        #expect(ledger.prune(among: [a, b]) == [merged.key], "nobody can add to it any more")
    }

    @Test func aRepeatOnOnePlayerAndALaterPlayElsewhereAreNewPlays() throws {
        var ledger = PlayLedger()
        var a = playing("mpv", song, since: 1000)
        _ = ledger.merge(try send(&a, position: 50, at: 1050), of: a, among: [a])
        let firstRound = ledger.merge(try send(&a, position: 0, at: 1100, stop: true), of: a, among: [a])
        _ = a.apply(.status(.playing, position: 0), at: 1100, rules: rules)              // played again at once
        let again = ledger.merge(try send(&a, position: 50, at: 1150), of: a, among: [a])
        #expect(again.key != firstRound.key && again.members == ["mpv": 1100])
        var b = playing("vlc", song, since: 1300)                                         // after both ended
        _ = ledger.merge(try send(&a, position: 0, at: 1200, stop: true), of: a, among: [a, b])
        let later = ledger.merge(try send(&b, position: 50, at: 1350), of: b, among: [a, b])
        #expect(Set([firstRound.key, again.key, later.key]).count == 3)
    }

    @Test func otherTagsAreOtherPlaysButAnotherTrackIDIsNot() throws {
        var ledger = PlayLedger()
        var a = playing("mpv", song, since: 1000)
        var otherID = song
        otherID.trackID = "/org/mpris/MediaPlayer2/Track/7"
        var b = playing("vlc", otherID, since: 1002)
        var live = song
        live.album = "Live"
        var c = playing("rhythmbox", live, since: 1001)
        let fromA = ledger.merge(try send(&a, position: 50, at: 1050), of: a, among: [a, b, c])
        #expect(ledger.merge(try send(&b, position: 50, at: 1052), of: b, among: [a, b, c]).key == fromA.key)
        #expect(ledger.merge(try send(&c, position: 50, at: 1051), of: c, among: [a, b, c]).key != fromA.key)
    }

    @Test func aMergedPlayKeptInTheAnchorKeepsItsKeyAcrossARestart() throws {
        var ledger = PlayLedger()
        var a = playing("mpv", song, since: 1000)
        var b = playing("mpv.instance42", song, since: 1004)
        let counted = ledger.merge(try send(&a, position: 50, at: 1050), of: a, among: [a, b])
        // The agent restarts: the merged play comes back from its anchor entry.
        let saved = try JSONEncoder().encode(counted)
        var restarted = PlayLedger()
        restarted.load(try JSONDecoder().decode(MergedPlay.self, from: saved))
        let joined = restarted.merge(try send(&b, position: 50, at: 1054), of: b, among: [a, b])
        #expect(joined.key == counted.key && joined.members.count == 2)
    }
}
