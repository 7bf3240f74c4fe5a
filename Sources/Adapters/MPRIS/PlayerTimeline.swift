import FoundationEssentials

/// MPRIS `PlaybackStatus`.
enum PlaybackStatus: String, Codable, Sendable {
    case playing = "Playing", paused = "Paused", stopped = "Stopped"
}

/// When a play counts: played for at least half the track or 4 minutes, whichever comes first,
/// and only for tracks of at least 30 s. All three come from the config.
struct PlayRules: Sendable, Equatable {
    var minPlayedFraction = 0.5
    var minPlayedTime = 240.0
    var minTrackLength = 30.0

    /// Track seconds a play needs; nil when the track is too short to ever count. With no
    /// length known, `minPlayedTime` counts.
    func threshold(length: Double?) -> Double? {
        guard let length else { return minPlayedTime }
        guard length >= minTrackLength else { return nil }
        return min(length * minPlayedFraction, minPlayedTime)
    }
}

/// One listen of one track, from the moment it started playing.
struct Play: Codable, Sendable, Equatable {
    var track: Track
    /// Wall-clock seconds since 1970 when it started (part of the key).
    var startedAt: Double
    /// Track seconds actually played: paused and skipped time are not in it.
    var played: Double
    /// True once it passed the rules and was sent; later sends update the same key.
    var counted: Bool
    /// The last moment it was seen playing: the item's `ended_at`.
    var lastPlayingAt: Double
}

/// What one player looks like at one moment (a `GetAll`), for a first look or a timer run.
struct PlayerSnapshot: Sendable, Equatable {
    var identity: String
    var status: PlaybackStatus
    var rate: Double
    var track: Track?
    /// Track seconds; nil when the player does not say.
    var position: Double?
}

/// Something a followed player signalled, or a `Position` read.
enum PlayerEvent: Sendable, Equatable {
    case status(PlaybackStatus, position: Double?)
    case track(Track?, position: Double?)
    case seeked(to: Double)
    case rate(Double, position: Double?)
    /// A `Position` read; nil when the player did not answer (it is taken to have played on at its rate).
    case position(Double?)
}

/// The books of one player: what it shows, where it was when last looked at, and the play in
/// progress. Pure and clock-free (`now` is passed in), so it is tested with exact times; it is
/// also what the anchor keeps per player, so a restart of the agent mid-track loses nothing.
///
/// Play time is counted in track time: the position's advance while playing (so 2× counts as
/// much as 1×). Between signals the player is assumed to play at `rate`; a `Position` read
/// corrects that, and a jump no signal explains (an unsignalled seek) is not counted as played.
struct PlayerTimeline: Codable, Sendable, Equatable {
    /// The bus name after `org.mpris.MediaPlayer2.`: `mpv`, `firefox.instance_1_84`.
    var player: String
    /// The player's `Identity` ("mpv Media Player"); the item's `player`.
    var identity: String
    var status: PlaybackStatus = .stopped
    var rate = 1.0
    var track: Track?
    /// Track seconds at `observedAt`.
    var position = 0.0
    var observedAt: Double
    var play: Play?

    /// Position drift (track seconds) tolerated before a jump is taken for a seek.
    static let seekSlack = 2.0
    /// A seek to within this many seconds of the start of a counted play is a repeat.
    static let restartWindow = 2.0

    init(player: String, identity: String, at now: Double) {
        self.player = player; self.identity = identity; self.observedAt = now
    }

    // MARK: - Following (watch)

    /// Applies a signal seen live. Returns the plays to send: one that just passed the rules,
    /// or a counted one that ended (same key, final figures).
    mutating func apply(_ event: PlayerEvent, at now: Double, rules: PlayRules) -> [Play] {
        var sends: [Play] = []
        switch event {
        case .status(let newStatus, let position):
            settle(at: now, position: position, watched: true)
            status = newStatus
            if newStatus == .stopped { finish(rules: rules, into: &sends); self.position = position ?? 0 }
            startIfPlaying(at: now)
        case .track(let newTrack, let position):
            if let newTrack, let current = track, newTrack.isSame(as: current) {
                track = newTrack; play?.track = newTrack               // a late length or album, same listen
                break
            }
            settle(at: now, position: nil, watched: true)             // the old track played until now
            finish(rules: rules, into: &sends)
            track = newTrack; self.position = position ?? 0; observedAt = now
            startIfPlaying(at: now)
        case .seeked(let target):
            settle(at: now, position: nil, watched: true)             // what played before the jump counts
            let wasNearEnd = track?.length.map { position >= $0 - PlayerTimeline.seekSlack * 2 } ?? false
            position = target
            if target <= PlayerTimeline.restartWindow && (play?.counted == true || wasNearEnd) {
                finish(rules: rules, into: &sends)                    // back to the start: a repeat
                startIfPlaying(at: now)
            }
        case .rate(let newRate, let position):
            settle(at: now, position: position, watched: true)
            if newRate.isFinite && newRate > 0 { rate = newRate }
        case .position(let reported):
            if let reported, isRewound(to: reported, at: now) {                     // looped without a Seeked signal
                settle(at: now, position: nil, watched: true)
                finish(rules: rules, into: &sends)
                position = reported
                startIfPlaying(at: now)
            } else {
                settle(at: now, position: reported, watched: true)
            }
        }
        if let crossed = countIfDue(rules: rules) { sends.append(crossed) }
        return sends
    }

    /// The player left the bus while followed: the time since the last signal counts as played
    /// (nothing said it stopped), up to the track's end.
    mutating func vanish(at now: Double, rules: PlayRules) -> [Play] {
        var sends: [Play] = []
        settle(at: now, position: nil, watched: true)
        finish(rules: rules, into: &sends)
        return sends
    }

    /// The player is gone and nobody watched it go (a timer run, a restart): only what was
    /// already counted is sent, with the figures last seen.
    mutating func closeUnobserved(rules: PlayRules) -> [Play] {
        var sends: [Play] = []
        finish(rules: rules, into: &sends)
        return sends
    }

    /// When a `Position` read could show the play passing the rules; nil when no read is needed.
    func nextCheck(rules: PlayRules) -> Double? {
        guard status == .playing, let play, !play.counted, let threshold = rules.threshold(length: play.track.length) else { return nil }
        return observedAt + max(0, threshold - play.played) / rate + 0.02
    }

    // MARK: - Looking now and then (a timer run, or the first look after a restart)

    /// Brings the books up to what the player shows now. Only the position's plausible advance
    /// since the last look counts as played; a different track ends the old play.
    mutating func reconcile(with snapshot: PlayerSnapshot, at now: Double, rules: PlayRules) -> [Play] {
        var sends: [Play] = []
        identity = snapshot.identity
        if let newTrack = snapshot.track, let current = track, newTrack.isSame(as: current) {
            if let reported = snapshot.position, isRewound(to: reported, at: now) {
                finish(rules: rules, into: &sends)
                position = reported; observedAt = now
                startUnobserved(at: now, status: snapshot.status, rate: snapshot.rate)
            } else {
                settle(at: now, position: snapshot.position, watched: false)
            }
            track = newTrack; play?.track = newTrack
        } else {
            finish(rules: rules, into: &sends)
            track = snapshot.track; position = snapshot.position ?? 0; observedAt = now
            startUnobserved(at: now, status: snapshot.status, rate: snapshot.rate)
        }
        status = snapshot.status
        if snapshot.rate.isFinite && snapshot.rate > 0 { rate = snapshot.rate }
        if status == .stopped { finish(rules: rules, into: &sends) }
        startIfPlaying(at: now)
        if let crossed = countIfDue(rules: rules) { sends.append(crossed) }
        return sends
    }

    /// The wall clock stepped by `step` seconds: the times kept move with it, so the time since
    /// the last look stays what really passed and the play's dates follow today's clock.
    mutating func shiftWallTimes(by step: Double) {
        observedAt += step
        play?.startedAt += step
        play?.lastPlayingAt += step
    }

    // MARK: - Bookkeeping

    /// Moves the books to `now`. With a reported position, its advance counts when it is
    /// plausible (no faster than the rate allows); without one, a watched player that was
    /// playing is taken to have played at its rate, up to the track's end.
    private mutating func settle(at now: Double, position reported: Double?, watched: Bool) {
        let elapsed = max(0, now - observedAt)
        var advance = 0.0
        if let reported {
            let delta = reported - position
            if delta >= -0.5 && delta <= rate * elapsed * 1.1 + PlayerTimeline.seekSlack { advance = max(0, delta) }
            else if watched && status == .playing { advance = rate * elapsed }   // an unsignalled seek: it still played meanwhile
        } else if watched && status == .playing {
            advance = rate * elapsed
            if let length = track?.length { advance = min(advance, max(0, length - position)) }
        }
        if play != nil {
            play?.played += advance
            if status == .playing || advance > 0 { play?.lastPlayingAt = now }
        }
        position = reported ?? position + advance
        observedAt = now
    }

    /// The player went back to the start of the same track after the play counted: a repeat.
    private func isRewound(to reported: Double, at now: Double) -> Bool {
        guard play?.counted == true, reported <= PlayerTimeline.restartWindow + rate * max(0, now - observedAt) else { return false }
        return reported < position - PlayerTimeline.seekSlack
    }

    private mutating func startIfPlaying(at now: Double) {
        guard play == nil, status == .playing, let track else { return }
        play = Play(track: track, startedAt: now, played: 0, counted: false, lastPlayingAt: now)
    }

    /// A play first seen part-way: it started `position` ago (at the rate seen), and only what
    /// is seen from now on counts.
    private mutating func startUnobserved(at now: Double, status seen: PlaybackStatus, rate seenRate: Double) {
        guard play == nil, seen != .stopped, let track else { return }
        let startedAt = now - position / (seenRate.isFinite && seenRate > 0 ? seenRate : 1)
        play = Play(track: track, startedAt: startedAt.rounded(.down), played: 0, counted: false, lastPlayingAt: now)
    }

    private mutating func countIfDue(rules: PlayRules) -> Play? {
        guard var current = play, !current.counted, let threshold = rules.threshold(length: current.track.length),
              current.played >= threshold - 0.05 else { return nil }
        current.counted = true
        play = current
        return current
    }

    /// Ends the play in progress; it is sent if it counted (or counts now).
    private mutating func finish(rules: PlayRules, into sends: inout [Play]) {
        if countIfDue(rules: rules) != nil || play?.counted == true, let ended = play { sends.append(ended) }
        play = nil
    }
}
