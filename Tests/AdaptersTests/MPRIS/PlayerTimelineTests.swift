import Foundation
import Testing
@testable import Adapters

/// The play rules on exact clocks: every event carries its own `now`.
struct PlayerTimelineTests {
    let rules = PlayRules()
    let song = Track(title: "Song", artists: ["Ann"], album: "LP", length: 300, trackID: "/t/1")
    let other = Track(title: "Other", artists: ["Bo"], album: nil, length: 200, trackID: "/t/2")

    /// A player that starts `track` at t=1000, position 0, rate 1.
    func playing(_ track: Track) -> PlayerTimeline {
        var t = PlayerTimeline(player: "mpv", identity: "mpv Media Player", at: 1000)
        _ = t.apply(.track(track, position: 0), at: 1000, rules: rules)
        _ = t.apply(.status(.playing, position: 0), at: 1000, rules: rules)
        return t
    }

    @Test func thresholdsAreHalfOrFourMinutesAndShortTracksNeverCount() {
        #expect(rules.threshold(length: 300) == 150)
        #expect(rules.threshold(length: 600) == 240)
        #expect(rules.threshold(length: nil) == 240)
        #expect(rules.threshold(length: 29) == nil)
        #expect(rules.threshold(length: 30) == 15)
        let custom = PlayRules(minPlayedFraction: 0.8, minPlayedTime: 60, minTrackLength: 10)
        #expect(custom.threshold(length: 50) == 40)
        #expect(custom.threshold(length: 500) == 60)
    }

    @Test func aPlayCountsWhenItsPositionPassesHalfTheTrack() {
        var t = playing(song)
        #expect(t.nextCheck(rules: rules).map { abs($0 - 1150.02) < 1e-9 } == true, "the one read is due when 150 s could have played")
        #expect(t.apply(.position(149), at: 1149.5, rules: rules).isEmpty)
        let sent = t.apply(.position(150.5), at: 1150.6, rules: rules)
        #expect(sent.count == 1)
        #expect(sent.first?.counted == true && sent.first?.startedAt == 1000 && abs((sent.first?.played ?? 0) - 150.5) < 1e-9)
        #expect(t.nextCheck(rules: rules) == nil, "no more reads once it counted")
        // The track ends and the next begins: the counted play is sent again, same start, final figures.
        let final = t.apply(.track(other, position: 0), at: 1300, rules: rules)
        #expect(final.count == 1 && final.first?.startedAt == 1000 && final.first?.lastPlayingAt == 1300)
        #expect(abs((final.first?.played ?? 0) - 299.9) < 1e-9, "150.5 read, then 149.4 s of wall time at 1×")
    }

    @Test func pausedTimeDoesNotCountAndALongPauseIsStillOnePlay() {
        var t = playing(song)
        #expect(t.apply(.status(.paused, position: 100), at: 1100, rules: rules).isEmpty)
        #expect(t.nextCheck(rules: rules) == nil, "paused: no wakeups")
        #expect(t.apply(.status(.playing, position: 100), at: 1100 + 86_400, rules: rules).isEmpty, "a day's pause adds nothing")
        let sent = t.apply(.position(151), at: 1100 + 86_400 + 51, rules: rules)
        #expect(sent.count == 1 && sent.first?.startedAt == 1000 && abs((sent.first?.played ?? 0) - 151) < 1e-9)
    }

    @Test func skippedTimeIsNotPlayed() {
        var t = playing(song)
        #expect(t.apply(.seeked(to: 250), at: 1010, rules: rules).isEmpty, "10 s played, then a jump")
        let end = t.apply(.track(other, position: 0), at: 1060, rules: rules)
        #expect(end.isEmpty, "10 + 50 s is under 150 s, whatever the position says")
        #expect(t.play?.track == other)
    }

    @Test func anUnsignalledJumpCountsTheTimeNotTheDistance() {
        var t = playing(song)
        _ = t.apply(.position(280), at: 1020, rules: rules)            // 280 s of track in 20 s: a jump
        #expect(abs((t.play?.played ?? 0) - 20) < 1e-9)
    }

    @Test func fasterPlaybackCountsTrackTime() {
        var t = playing(song)
        _ = t.apply(.rate(2, position: 20), at: 1020, rules: rules)
        #expect(t.nextCheck(rules: rules).map { abs($0 - (1020 + 65 + 0.02)) < 1e-9 } == true)
        let sent = t.apply(.position(151), at: 1085.5, rules: rules)
        #expect(sent.count == 1, "150 s of track in 85 s of wall time at 2×")
    }

    @Test func aRepeatIsANewPlay() {
        var t = playing(song)
        _ = t.apply(.position(151), at: 1151, rules: rules)
        #expect(t.play?.counted == true)
        let first = t.apply(.seeked(to: 0), at: 1300, rules: rules)          // the loop: back to 0
        #expect(first.count == 1 && first.first?.startedAt == 1000 && first.first?.played == 300)
        #expect(t.play?.startedAt == 1300 && t.play?.played == 0 && t.play?.counted == false)
        let second = t.apply(.position(152), at: 1452, rules: rules)
        #expect(second.count == 1 && second.first?.startedAt == 1300)
    }

    @Test func aLoopWithoutSeekedIsSeenByThePositionRead() {
        var t = playing(song)
        _ = t.apply(.position(151), at: 1151, rules: rules)
        let first = t.apply(.position(5), at: 1305, rules: rules)
        #expect(first.count == 1 && first.first?.startedAt == 1000)
        #expect(t.play?.startedAt == 1305)
    }

    @Test func seekingBackBeforeItCountedIsTheSamePlay() {
        var t = playing(song)
        _ = t.apply(.seeked(to: 0), at: 1100, rules: rules)                 // 100 s played, start over
        #expect(t.play?.startedAt == 1000 && abs((t.play?.played ?? 0) - 100) < 1e-9)
        #expect(t.apply(.position(50), at: 1150, rules: rules).count == 1, "100 + 50 s counts")
    }

    @Test func stoppingEndsThePlayAndPlayingAgainStartsANewOne() {
        var t = playing(song)
        let stopped = t.apply(.status(.stopped, position: nil), at: 1200, rules: rules)
        #expect(stopped.count == 1 && stopped.first?.played == 200, "200 s watched playing counts at the stop")
        #expect(t.play == nil)
        _ = t.apply(.status(.playing, position: 0), at: 1300, rules: rules)
        #expect(t.play?.startedAt == 1300)
    }

    @Test func aShortTrackNeverCountsAndAnUnknownLengthNeedsFourMinutes() {
        var t = playing(Track(title: "Jingle", length: 20))
        #expect(t.nextCheck(rules: rules) == nil)
        #expect(t.apply(.status(.stopped, position: nil), at: 1020, rules: rules).isEmpty)
        var stream = playing(Track(title: "Radio"))
        #expect(stream.apply(.position(239), at: 1239, rules: rules).isEmpty)
        #expect(stream.apply(.position(241), at: 1241, rules: rules).count == 1)
    }

    @Test func aVanishedPlayerEndsItsPlayAtTheEstimateCappedByTheLength() {
        var t = playing(song)
        let sent = t.vanish(at: 2000, rules: rules)
        #expect(sent.count == 1 && sent.first?.played == 300, "1000 s elapsed, but the track is 300 s")
        var early = playing(song)
        #expect(early.vanish(at: 1100, rules: rules).isEmpty, "quit at 100 s: under half")
    }

    @Test func aLateLengthOrArtUpdateIsTheSameTrack() {
        var t = playing(Track(title: "Song", artists: ["Ann"], album: "LP", length: nil, trackID: "/t/1"))
        _ = t.apply(.track(song, position: nil), at: 1010, rules: rules)
        #expect(t.play?.startedAt == 1000 && t.play?.track.length == 300)
    }

    // MARK: - Timer runs

    func snapshot(_ track: Track?, _ status: PlaybackStatus, at position: Double?) -> PlayerSnapshot {
        PlayerSnapshot(identity: "Spotify", status: status, rate: 1, track: track, position: position)
    }

    @Test func timerRunsCountTheAdvanceBetweenLooks() {
        let mix = Track(title: "Mix", length: 3600)
        var t = PlayerTimeline(player: "spotify", identity: "Spotify", at: 0)
        #expect(t.reconcile(with: snapshot(mix, .playing, at: 600), at: 10_000, rules: rules).isEmpty)
        #expect(t.play?.startedAt == 9400 && t.play?.played == 0, "first look: started 600 s ago, nothing counted yet")
        let sent = t.reconcile(with: snapshot(mix, .playing, at: 1500), at: 10_900, rules: rules)
        #expect(sent.count == 1 && sent.first?.played == 900 && sent.first?.startedAt == 9400)
        // The next track is up at the following look: the mix ends with what was seen.
        let end = t.reconcile(with: snapshot(other, .playing, at: 30), at: 11_800, rules: rules)
        #expect(end.count == 1 && end.first?.played == 900 && end.first?.track.title == "Mix")
    }

    @Test func timerRunsDoNotCountJumpsOrShortTracksTheyMissed() {
        var t = PlayerTimeline(player: "spotify", identity: "Spotify", at: 0)
        _ = t.reconcile(with: snapshot(song, .playing, at: 10), at: 10_000, rules: rules)
        #expect(t.reconcile(with: snapshot(song, .playing, at: 290), at: 10_030, rules: rules).isEmpty, "280 s in 30 s: a seek")
        #expect(t.reconcile(with: snapshot(other, .paused, at: 100), at: 10_900, rules: rules).isEmpty)
        #expect(t.closeUnobserved(rules: rules).isEmpty)
    }

    @Test func aRestartMidTrackContinuesThePlayFromTheAnchor() throws {
        var t = playing(song)
        _ = t.apply(.position(100), at: 1100, rules: rules)
        let saved = try JSONEncoder().encode(t)
        var restored = try JSONDecoder().decode(PlayerTimeline.self, from: saved)
        let sent = restored.reconcile(with: PlayerSnapshot(identity: "mpv Media Player", status: .playing, rate: 1, track: song, position: 160),
                                      at: 1160, rules: rules)
        #expect(sent.count == 1 && sent.first?.startedAt == 1000 && sent.first?.played == 160, "one play, its start kept")
    }
}
