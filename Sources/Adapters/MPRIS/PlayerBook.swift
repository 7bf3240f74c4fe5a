import FoundationEssentials
import IngestCore

/// Every player's timeline and the merged plays (`PlayLedger`), loaded from and saved to the
/// anchor (one `player/<name>` entry per player, one `play/<key>` per merged play), with the
/// items and anchor changes not yet committed. `scan` and `follow` share it.
struct PlayerBook {
    let rules: PlayRules
    let filter: PlayerFilter
    /// By full bus name.
    private(set) var timelines: [String: PlayerTimeline] = [:]
    private var ledger = PlayLedger()
    private var pending = PendingCommit()
    private var clock: WallClockWatch

    static let entryPrefix = "player/"

    /// Loads what the anchor holds; an entry that does not decode (an older layout) is dropped.
    init(anchor: Anchor, rules: PlayRules, filter: PlayerFilter, clock: WallClockWatch = WallClockWatch()) {
        self.rules = rules; self.filter = filter; self.clock = clock
        for (key, data) in anchor.entries {
            if key.hasPrefix(PlayerBook.entryPrefix), let timeline = try? JSONDecoder().decode(PlayerTimeline.self, from: data) {
                timelines[BusConnection.playerPrefix + timeline.player] = timeline
            } else if key.hasPrefix(PlayLedger.entryPrefix), let play = try? JSONDecoder().decode(MergedPlay.self, from: data) {
                ledger.load(play)
            } else {
                pending.drop(key)
            }
        }
    }

    /// The wall time now. When the wall clock stepped since the last reading, every time kept
    /// moves with it first: a play under way keeps the time it really played (issue 30's soak lost
    /// two plays to an hour's step back), and its dates never run backwards or into the future.
    mutating func now() -> Double {
        let (wall, step) = clock.now()
        guard step != 0 else { return wall }
        Log.notice("mpris: the wall clock stepped \(step > 0 ? "forward" : "back") by \(Int(abs(step).rounded())) s; plays under way keep their played time")
        ledger.shiftWallTimes(by: step)
        for name in timelines.keys { timelines[name]?.shiftWallTimes(by: step) }
        ledger.plays.forEach { pending.keep(PlayLedger.entryPrefix + $0.key, $0.value) }
        saveAll()
        return wall
    }

    /// Looks at every player on the bus now and closes the books of those that are gone.
    /// - Returns: the names looked at, with their unique owners.
    mutating func survey(_ bus: BusConnection) throws(BusError) -> [String: String] {
        var owners: [String: String] = [:]
        let present = try bus.playerNames()
        for name in present {
            if let owner = try look(at: name, on: bus) { owners[owner] = name }
        }
        for name in timelines.keys where !present.contains(name) {
            update(name) { $0.closeUnobserved(rules: $1) }
            forget(name)
        }
        return owners
    }

    /// Reconciles one player with what it shows now. Returns its unique owner name, or nil when
    /// it is filtered out or vanished during the calls.
    mutating func look(at name: String, on bus: BusConnection) throws(BusError) -> String? {
        guard let snapshot = try BusConnection.unlessGone({ () throws(BusError) in try bus.snapshot(of: name) }),
              let owner = try BusConnection.unlessGone({ () throws(BusError) in try bus.owner(of: name) }) else { return nil }
        guard filter.allows(busName: name, identity: snapshot.identity) else {
            Log.debug("mpris: \(name) (\(snapshot.identity)) is filtered out by Player=/IgnorePlayer=/IgnorePlayers= (playerctld always is)")
            forget(name)
            return nil
        }
        let lookedAt = now()
        if timelines[name] == nil { timelines[name] = PlayerTimeline(player: BusConnection.shortName(name), identity: snapshot.identity, at: lookedAt) }
        update(name) { $0.reconcile(with: snapshot, at: lookedAt, rules: $1) }
        return owner
    }

    /// Changes one player's timeline; the plays it reports are merged with other players' plays
    /// of the same listen and become items, the timeline and the merged plays anchor updates.
    mutating func update(_ name: String, _ change: (inout PlayerTimeline, PlayRules) -> [Play]) {
        guard var timeline = timelines[name] else { return }
        let sends = change(&timeline, rules)
        timelines[name] = timeline
        for play in sends {
            let queued = ledger.plays
            let merged = ledger.merge(play, of: timeline, among: timelines.values)
            let item = PlayItem.make(merged)
            // A player that quits right after its play counted ends it where it counted: the same
            // item again, already queued (the ledger entry is committed with it), is not resent.
            if queued[merged.key].map(PlayItem.make) != item { pending.replace(item) }
            pending.keep(PlayLedger.entryPrefix + merged.key, merged)
        }
        save(timeline)
        prune()
    }

    /// Drops a player's timeline (it left the bus, or the filter excludes it).
    mutating func forget(_ name: String) {
        guard let timeline = timelines.removeValue(forKey: name) else { return }
        pending.drop(PlayerBook.entryPrefix + timeline.player)
        prune()
    }

    private mutating func prune() {
        for key in ledger.prune(among: timelines.values) { pending.drop(PlayLedger.entryPrefix + key) }
    }

    /// Queues every timeline as it is now: what `follow` hands over when it stops.
    mutating func saveAll() { timelines.values.forEach { save($0) } }

    private mutating func save(_ timeline: PlayerTimeline) { pending.keep(PlayerBook.entryPrefix + timeline.player, timeline) }

    /// What to commit now, emptied.
    mutating func take() -> FollowCommit? { pending.take() }
}
