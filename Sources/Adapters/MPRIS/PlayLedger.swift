import FoundationEssentials
import IngestCore

/// One listen as the node gets it: the counted plays of one track (same title, artists and
/// album) that several players showed over overlapping times, such as a browser's own MPRIS and
/// an extension's, or two mpv windows, merged under one key.
struct MergedPlay: Codable, Sendable, Equatable {
    var track: Track
    /// The earliest start of the plays of this track that overlapped the first play to count,
    /// counted or not, when it counted. With the track it makes the key, and it never moves
    /// afterwards: whichever player counts first, or is seen first, the key is the same.
    var keyStart: Double
    /// The earliest start and the latest end of the merged plays.
    var startedAt: Double
    var endedAt: Double
    /// Track seconds: the most any one player played. The players show the same listen, so
    /// adding them up would count it twice.
    var played: Double
    /// The `Identity` of the player whose play counted first.
    var player: String
    /// The plays merged in: each player's bus name (after `org.mpris.MediaPlayer2.`) → the start
    /// of its play. One play per player: a player's own plays follow each other (a repeat is a
    /// new play), so they never merge.
    var members: [String: Double]

    var key: String {
        let parts = [track.title, track.artists.joined(separator: "\u{1F}"), track.album ?? "", String(Int64(keyStart.rounded(.down)))]
        return Digest.sha256Hex(parts.joined(separator: "\u{1E}"), length: 32, prefix: "mpris:")
    }
}

/// The merged plays that a player could still join or update, kept in the anchor (one
/// `play/<key>` entry each) and committed with the items they made, so a restart of the agent
/// reuses each key. A merged play is dropped once no player holds a play that belongs to it or
/// could join it.
struct PlayLedger {
    private(set) var plays: [String: MergedPlay] = [:]

    static let entryPrefix = "play/"

    mutating func load(_ play: MergedPlay) { plays[play.key] = play }

    /// Merges a play that `timeline`'s player just counted or ended into the merged play it
    /// belongs to (its own earlier send, else one of the same track whose time it overlaps),
    /// or starts one.
    mutating func merge(_ play: Play, of timeline: PlayerTimeline, among timelines: some Collection<PlayerTimeline>) -> MergedPlay {
        let player = timeline.player
        let own = plays.values.first { $0.members[player] == play.startedAt && $0.track.hasSameTags(as: play.track) }
        let joined = own ?? plays.values.first { merged in
            merged.members[player] == nil && merged.track.hasSameTags(as: play.track)
                && play.startedAt < liveEnd(of: merged, among: timelines) && PlayLedger.end(of: play, in: timeline) > merged.startedAt
        }
        var merged = joined ?? MergedPlay(track: play.track, keyStart: keyStart(for: play, of: timeline, among: timelines),
                                          startedAt: play.startedAt, endedAt: play.lastPlayingAt, played: 0,
                                          player: timeline.identity, members: [:])
        merged.members[player] = play.startedAt
        merged.startedAt = min(merged.startedAt, play.startedAt)
        merged.endedAt = max(merged.endedAt, play.lastPlayingAt)
        merged.played = max(merged.played, play.played)
        if merged.track.length == nil { merged.track.length = play.track.length }
        plays[merged.key] = merged
        return merged
    }

    /// The wall clock stepped by `step` seconds (see `PlayerTimeline.shiftWallTimes`). The key
    /// start stays: the node already holds the play under it.
    mutating func shiftWallTimes(by step: Double) {
        plays = plays.mapValues { merged in
            var shifted = merged
            shifted.startedAt += step
            shifted.endedAt += step
            shifted.members = merged.members.mapValues { $0 + step }
            return shifted
        }
    }

    /// The keys of the merged plays no player can add to any more: each is dropped.
    mutating func prune(among timelines: some Collection<PlayerTimeline>) -> [String] {
        let done = plays.filter { _, merged in
            !timelines.contains { timeline in
                guard let play = timeline.play, merged.track.hasSameTags(as: play.track) else { return false }
                if let start = merged.members[timeline.player] { return start == play.startedAt }     // a member still playing
                return play.startedAt < liveEnd(of: merged, among: timelines)                          // one that could join
            }
        }.map(\.key)
        done.forEach { plays.removeValue(forKey: $0) }
        return done
    }

    /// A new merged play's key start: the earliest start among the plays of this track now in
    /// progress whose time overlaps this one's.
    private func keyStart(for play: Play, of timeline: PlayerTimeline, among timelines: some Collection<PlayerTimeline>) -> Double {
        let end = PlayLedger.end(of: play, in: timeline)
        let overlapping = timelines.compactMap { other -> Double? in
            guard let theirs = other.play, theirs.track.hasSameTags(as: play.track),
                  theirs.startedAt < end, PlayLedger.end(of: theirs, in: other) > play.startedAt else { return nil }
            return theirs.startedAt
        }
        return overlapping.reduce(play.startedAt, min)
    }

    /// Where the merged play ends as far as is known now: a member still playing has not ended.
    private func liveEnd(of merged: MergedPlay, among timelines: some Collection<PlayerTimeline>) -> Double {
        timelines.reduce(merged.endedAt) { end, timeline in
            guard let play = timeline.play, merged.members[timeline.player] == play.startedAt else { return end }
            return max(end, PlayLedger.end(of: play, in: timeline))
        }
    }

    /// A play's end so far: open while its player plays it.
    private static func end(of play: Play, in timeline: PlayerTimeline) -> Double {
        timeline.status == .playing && timeline.play?.startedAt == play.startedAt ? .infinity : play.lastPlayingAt
    }
}
