import FoundationEssentials
import IngestCore
#if canImport(Glibc)
import Glibc
#endif

/// Follows every player on the session bus from one dedicated thread, blocked in `poll` on the
/// bus socket between signals. It wakes for signals, for a `Position` read when a play could
/// pass the rules, and to reconnect when the bus has gone away; idle, it does not wake at all.
final class PlayerFollower {
    private var book: PlayerBook
    private let control: LoopControl
    private let label: String
    private let emit: @Sendable (FollowCommit) -> Void
    /// Unique name (`:1.42`) → the player's bus name: signals carry the former.
    private var owners: [String: String] = [:]

    init(book: PlayerBook, control: LoopControl, label: String, emit: @escaping @Sendable (FollowCommit) -> Void) {
        self.book = book; self.control = control; self.label = label; self.emit = emit
    }

    /// Runs until `control.stop()`, then hands over every timeline (the plays in progress).
    func run() {
        var backoff = Backoff(base: 0.5, cap: 10)
        var lost = false
        while !control.isStopping {
            do throws(BusError) {
                let bus = try BusConnection(.session)
                try connect(bus)
                if lost { Log.notice("\(label): the session bus is back; following \(book.timelines.count) players") }
                lost = false; backoff.reset()
                try serve(bus)
            } catch {
                if !lost { Log.warning("\(label): \(error); following again when the session bus returns") }
                lost = true
            }
            flush()
            guard !control.isStopping else { break }
            control.wait(timeout: backoff.next())      // the only wakeups while there is no bus
        }
        book.saveAll()
        flush()
    }

    private func flush() {
        if let commit = book.take() { emit(commit) }
    }

    private func connect(_ bus: BusConnection) throws(BusError) {
        for rule in BusConnection.mprisMatchRules { try bus.addMatch(rule) }
        owners = try book.survey(bus)
    }

    private func serve(_ bus: BusConnection) throws(BusError) {
        while !control.isStopping {
            while let signal = try bus.nextSignal() { try handle(signal, bus) }
            let now = book.now()
            let due = book.timelines.filter { ($0.value.nextCheck(rules: book.rules) ?? .infinity) <= now }.map(\.key)
            if !due.isEmpty {
                for name in due {
                    let position = try BusConnection.unlessGone { () throws(BusError) in try bus.position(of: name) } ?? nil
                    let readAt = book.now()
                    book.update(name) { $0.apply(.position(position), at: readAt, rules: $1) }
                }
                continue                                              // the calls may have queued signals
            }
            flush()
            let next = book.timelines.values.compactMap { $0.nextCheck(rules: book.rules) }.min()
            control.wait(on: [bus], timeout: next.map { $0 - now })
        }
    }

    private func handle(_ signal: BusSignal, _ bus: BusConnection) throws(BusError) {
        let args = signal.arguments
        switch signal.member {
        case "NameOwnerChanged":
            guard args.count == 3, let name = args[0].text, name.hasPrefix(BusConnection.playerPrefix),
                  let old = args[1].text, let new = args[2].text else { return }
            if !old.isEmpty {
                owners.removeValue(forKey: old)
                let goneAt = book.now()
                book.update(name) { $0.vanish(at: goneAt, rules: $1) }
                book.forget(name)
            }
            if !new.isEmpty, try book.look(at: name, on: bus) != nil { owners[new] = name }
        case "PropertiesChanged":
            guard let name = owners[signal.sender], args.count >= 2, let changed = args[1].dict else { return }
            let invalidated = Set((args.count > 2 ? args[2] : .array([])).stringList)
            var properties = changed
            for key in ["PlaybackStatus", "Metadata", "Rate"] where invalidated.contains(key) && changed[key] == nil {
                properties[key] = try BusConnection.unlessGone { () throws(BusError) in
                    try bus.property(name, BusConnection.objectPath, BusConnection.playerInterface, key)
                } ?? nil
            }
            try apply(events(from: properties), to: name, bus)
        case "Seeked":
            guard let name = owners[signal.sender], let micros = args.first?.number else { return }
            let seekedAt = book.now()
            book.update(name) { $0.apply(.seeked(to: micros / 1_000_000), at: seekedAt, rules: $1) }
        default:
            break
        }
    }

    /// A `PropertiesChanged` as events, in an order that keeps plays whole: a new track is
    /// taken before a status that starts playing it, and after one that stops the old one.
    private func events(from properties: [String: BusValue]) -> [PlayerEvent] {
        let status = properties["PlaybackStatus"]?.text.flatMap(PlaybackStatus.init(rawValue:)).map { PlayerEvent.status($0, position: nil) }
        let track = properties["Metadata"]?.dict.map { PlayerEvent.track(Track(metadata: $0), position: nil) }
        let rate = properties["Rate"]?.number.map { PlayerEvent.rate($0, position: nil) }
        let ordered = properties["PlaybackStatus"]?.text == PlaybackStatus.playing.rawValue ? [track, status] : [status, track]
        return (ordered + [rate]).compactMap { $0 }
    }

    /// Applies events with the player's `Position` where it makes the books exact (a pause, a
    /// resume, a new track, a rate change): one read per signal. With a new track the position
    /// is the new track's, so only the track event gets it.
    private func apply(_ events: [PlayerEvent], to name: String, _ bus: BusConnection) throws(BusError) {
        guard !events.isEmpty else { return }
        let needsPosition = events.contains { if case .status(.stopped, _) = $0 { false } else { true } }
        let newTrack = events.contains { if case .track = $0 { true } else { false } }
        let position = needsPosition ? try BusConnection.unlessGone { () throws(BusError) in try bus.position(of: name) } ?? nil : nil
        let now = book.now()
        for event in events {
            let located: PlayerEvent = switch event {
            case .status(let s, _) where s != .stopped && !newTrack: .status(s, position: position)
            case .track(let t, _): .track(t, position: position)
            case .rate(let r, _): .rate(r, position: position)
            default: event
            }
            book.update(name) { $0.apply(located, at: now, rules: $1) }
        }
    }
}

extension BusValue {
    var stringList: [String] { if case .array(let values) = self { return values.compactMap(\.text) }; return [] }
}
