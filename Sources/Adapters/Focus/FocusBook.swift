import FoundationEssentials
import IngestCore

/// A focus mode as the node knows it.
enum FocusMode: String, Sendable, CaseIterable, Codable {
    case doNotDisturb = "do-not-disturb", locked, idle
}

/// One thing on a bus that says a mode is on: a notification server's `Inhibited`, the screen
/// saver, GNOME's `show-banners`, xfce4-notifyd's `/do-not-disturb`, logind's `LockedHint` and
/// `IdleHint`. Several inputs may say the same mode (a lock seen by the screen saver and logind).
enum FocusInput: String, Sendable, CaseIterable, Codable {
    case notifications, screensaver, gnome, xfce, logindLocked = "logind-locked", logindIdle = "logind-idle"

    var mode: FocusMode {
        switch self {
        case .notifications, .gnome, .xfce: .doNotDisturb
        case .screensaver, .logindLocked: .locked
        case .logindIdle: .idle
        }
    }

    /// The `via` field: who reported it.
    var via: String {
        switch self {
        case .notifications: "kde"
        case .screensaver: "screensaver"
        case .gnome: "gnome"
        case .xfce: "xfce"
        case .logindLocked, .logindIdle: "logind"
        }
    }
}

/// The spans being followed, kept in the anchor so a span open when the agent stops is the same
/// span (same key) when it starts again.
///
/// A mode is on while any of its inputs is; its span starts when the first turns on and ends
/// when the last turns off. A span is sent only once it has lasted `minSpan` (shorter ones are
/// flicker), open (`end: null`) at that moment and again with its end, under one key.
struct FocusBook {
    struct Span: Codable, Equatable {
        var mode: FocusMode
        /// Whole seconds since 1970 (the key is made from it, unless `keyStart` is set).
        var start: Double
        /// The start the key was made from, when a step of the wall clock has moved `start` since.
        var keyStart: Double?
        var via: String
        /// Whether it went out open: its end must then go out too.
        var sent = false
        /// The last time it was known to be on: a span whose inputs vanished ends here.
        var seen: Double
    }

    let minSpan: Double
    private(set) var spans: [FocusMode: Span] = [:]
    /// Inputs that are on now.
    private(set) var on: Set<FocusInput> = []
    private var pending = PendingCommit()
    private var clock: WallClockWatch

    static let entryPrefix = "span/"

    init(anchor: Anchor, minSpan: Double, clock: WallClockWatch = WallClockWatch()) {
        self.minSpan = minSpan; self.clock = clock
        for (key, data) in anchor.entries {
            if key.hasPrefix(FocusBook.entryPrefix), let span = try? JSONDecoder().decode(Span.self, from: data) {
                spans[span.mode] = span
            } else {
                pending.drop(key)
            }
        }
    }

    /// The wall time now. When the wall clock stepped since the last reading (NTP setting a clock
    /// that was wrong at boot, a user changing the time), the open spans move with it, whole
    /// seconds at a time, so each keeps its true length and its key.
    mutating func now() -> Double {
        let (wall, step) = clock.now()
        let whole = step.rounded()
        guard whole != 0 else { return wall }
        Log.notice("focus: the wall clock stepped \(whole > 0 ? "forward" : "back") by \(Int(abs(whole))) s; open spans keep their length")
        for (mode, var span) in spans {
            span.keyStart = span.keyStart ?? span.start
            span.start += whole
            span.seen += whole
            spans[mode] = span
            save(mode)
        }
        return wall
    }

    /// An input's state as read or signalled at `now`.
    mutating func set(_ input: FocusInput, _ turnedOn: Bool, at now: Double) {
        let mode = input.mode
        let wasOn = isOn(mode)
        if turnedOn { on.insert(input) } else { on.remove(input) }
        if isOn(mode) {
            if spans[mode] == nil {
                spans[mode] = Span(mode: mode, start: now.rounded(.down), via: input.via, seen: now)
                save(mode)
            } else {
                spans[mode]!.seen = now                       // a span carried over: it goes on
            }
        } else if wasOn {
            end(mode, at: now)
        }
        tick(at: now)
    }

    func isOn(_ mode: FocusMode) -> Bool { on.contains { $0.mode == mode } }

    /// Sends the spans that have now lasted `minSpan` as open ones.
    mutating func tick(at now: Double) {
        for (mode, span) in spans where !span.sent && now - span.start >= minSpan {
            spans[mode]!.sent = true
            spans[mode]!.seen = now
            pending.send([FocusBook.item(span, end: nil)])
            save(mode)
        }
    }

    /// When the next open span becomes worth sending.
    var nextDeadline: Double? { spans.values.filter { !$0.sent }.map { $0.start + minSpan }.min() }

    /// Marks every open span as seen now (before the agent stops: the last moment it was known on).
    mutating func touch(at now: Double) {
        for mode in spans.keys where isOn(mode) { spans[mode]!.seen = now; save(mode) }
    }

    /// After the first look at the buses: a span carried over from before a restart whose mode
    /// no input reports on any more ended while the agent was away; it is closed where it was last
    /// known to be on.
    mutating func closeStale() {
        for (mode, span) in spans where !isOn(mode) { end(mode, at: max(span.start, span.seen)) }
    }

    private mutating func end(_ mode: FocusMode, at time: Double) {
        guard let span = spans.removeValue(forKey: mode) else { return }
        pending.drop(FocusBook.entryPrefix + mode.rawValue)
        // A wall clock stepped back while the agent was not looking (between two timer runs) would
        // end it before it began: it ends where it began, as a play's end does (PlayItem).
        let end = max(time.rounded(.down), span.start)
        if span.sent || end - span.start >= minSpan { pending.send([FocusBook.item(span, end: end)]) }
    }

    private mutating func save(_ mode: FocusMode) {
        if let span = spans[mode] { pending.keep(FocusBook.entryPrefix + mode.rawValue, span) }
    }

    /// What to commit now, emptied.
    mutating func take() -> FollowCommit? { pending.take() }

    /// docs/node-api.md: `key (mode and start), version, mode, start, end (null while on), via`.
    static func item(_ span: Span, end: Double?) -> Item {
        let start = Date(timeIntervalSince1970: span.start).rfc3339
        let keyStart = span.keyStart.map { Date(timeIntervalSince1970: $0).rfc3339 } ?? start
        return Item(endpoint: .focus, key: "\(span.mode.rawValue):\(keyStart)",
                    fields: ["mode": .string(span.mode.rawValue), "start": .string(start), "via": .string(span.via),
                             "end": end.map { .string(Date(timeIntervalSince1970: $0).rfc3339) } ?? .null],
                    keepingNull: ["end"])
    }
}
