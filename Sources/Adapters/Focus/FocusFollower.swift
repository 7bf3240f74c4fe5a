import FoundationEssentials
import IngestCore

/// Follows the session bus (notification servers, screen savers, xfconfd, dconf) and the system bus
/// (logind) from one dedicated thread, blocked in `poll` on both sockets between signals. It
/// wakes for signals, when an open span has lasted `MinSpan=` (to send it), and to reconnect a
/// bus that is not there (with backoff: up to 10 s for the session bus, 60 s for a system bus
/// that a container may never have); idle with both buses up, it does not wake at all.
final class FocusFollower {
    private var book: FocusBook
    private let control: LoopControl
    private let label: String
    private let emit: @Sendable (FollowCommit) -> Void

    /// One bus and when to try it again while it is down (CLOCK_MONOTONIC seconds: a step of the
    /// wall clock must not put a retry off by an hour).
    private struct Link {
        var bus: BusConnection?
        var retryAt = 0.0
        var backoff: Backoff
        var lost = false
        init(bus: BusConnection? = nil, cap: Double) { self.bus = bus; backoff = Backoff(base: 0.5, cap: cap) }
    }
    private static let retryCap: [BusConnection.Kind: Double] = [.session: 10, .system: 60]
    private var links: [BusConnection.Kind: Link] = FocusFollower.retryCap.mapValues { Link(cap: $0) }
    /// The logind session followed, once found.
    private var sessionPath: String?

    init(book: FocusBook, control: LoopControl, label: String, emit: @escaping @Sendable (FollowCommit) -> Void) {
        self.book = book; self.control = control; self.label = label; self.emit = emit
    }

    /// One look at both buses, as a timer `run` takes it: spans open from the run before go on or
    /// end, a mode on now opens one (sent once a later look finds it still on past `MinSpan=`).
    func lookOnce() {
        for kind in [BusConnection.Kind.session, .system] { connect(kind, quietly: true) }
        book.closeStale()
        let now = book.now()
        book.touch(at: now)
        flush()
    }

    /// Runs until `control.stop()`, then hands over the open spans.
    func run() {
        for kind in [BusConnection.Kind.session, .system] { connect(kind) }
        book.closeStale()                                   // spans from before a restart that ended meanwhile
        flush()
        while !control.isStopping {
            for kind in [BusConnection.Kind.session, .system] {
                if links[kind]?.bus == nil, monotonicSeconds() >= links[kind]!.retryAt { connect(kind) }
                // Read at once what came while connecting: sd-bus queued the signals that arrived
                // during the survey's calls, and `poll` on the socket would not see them.
                guard let bus = links[kind]?.bus else { continue }
                do throws(BusError) {
                    while let signal = try bus.nextSignal() { try handle(signal, on: bus) }
                } catch { drop(kind, error) }
            }
            let now = book.now(), monotonicNow = monotonicSeconds()
            book.tick(at: now)
            flush()
            let retries = links.values.filter { $0.bus == nil }.map { $0.retryAt - monotonicNow }
            let next = (retries + [book.nextDeadline.map { $0 - now }].compactMap { $0 }).min()
            control.wait(on: links.values.compactMap(\.bus), timeout: next.map { max(0, $0) })
        }
        let now = book.now()
        book.touch(at: now)
        flush()
    }

    private func flush() {
        if let commit = book.take() { emit(commit) }
    }

    // MARK: - Connections

    private func connect(_ kind: BusConnection.Kind, quietly: Bool = false) {
        do throws(BusError) {
            let bus = try BusConnection(kind)
            for rule in bus.focusMatchRules { try bus.addMatch(rule) }
            try survey(bus)
            if links[kind]!.lost { Log.notice("\(label): the \(kind.rawValue) bus is back") }
            links[kind] = Link(bus: bus, cap: FocusFollower.retryCap[kind]!)
        } catch {
            if quietly { Log.info("\(label): \(error)") } else { drop(kind, error) }
        }
    }

    private func drop(_ kind: BusConnection.Kind, _ error: BusError) {
        var link = links[kind]!
        if !link.lost {
            // No system bus (a container, a minimal machine) is normal: said once, quietly.
            if kind == .system { Log.info("\(label): \(error); logind's lock and idle hints are not followed until the system bus is there") }
            else { Log.warning("\(label): \(error); following again when the session bus returns") }
        }
        link.bus = nil
        link.lost = true
        link.retryAt = monotonicSeconds() + link.backoff.next()
        links[kind] = link
        if kind == .system { sessionPath = nil }
    }

    // MARK: - Reading the services

    /// Reads every input this bus serves; absent services keep their inputs as they were.
    private func survey(_ bus: BusConnection) throws(BusError) {
        switch bus.kind {
        case .session:
            // Only services already running: a call to one that is merely activatable would have
            // the bus start it (a notification server popping up because we looked).
            for service in BusConnection.Focus.sessionServices {
                if service != BusConnection.Focus.dconf, try !bus.hasOwner(service) { continue }
                try read(service, on: bus)
            }
        case .system:
            try read(BusConnection.Focus.logind, on: bus)
        }
    }

    /// Reads the inputs one service gives, at once (it just appeared, or we just connected).
    private func read(_ service: String, on bus: BusConnection) throws(BusError) {
        let now = book.now()
        switch service {
        case BusConnection.Focus.notifications:
            if let on = try bus.notificationsInhibited() { book.set(.notifications, on, at: now) }
        case BusConnection.Focus.screenSaver:
            if let on = try bus.screenSaverActive() { book.set(.screensaver, on, at: now) }
        case BusConnection.Focus.xfconf:
            if let on = try bus.xfceDoNotDisturb() { book.set(.xfce, on, at: now) }
        case BusConnection.Focus.dconf:
            if let on = BusConnection.gnomeDoNotDisturb() { book.set(.gnome, on, at: now) }
        case BusConnection.Focus.logind:
            sessionPath = try bus.logindSessionPath()
            guard let path = sessionPath else { return }
            if let locked = try bus.logindHint("LockedHint", at: path) { book.set(.logindLocked, locked, at: now) }
            if let idle = try bus.logindHint("IdleHint", at: path) { book.set(.logindIdle, idle, at: now) }
        default:
            break
        }
    }

    private func handle(_ signal: BusSignal, on bus: BusConnection) throws(BusError) {
        let args = signal.arguments, now = book.now()
        switch (signal.interface, signal.member) {
        case ("org.freedesktop.DBus", "NameOwnerChanged"):
            // A service that went away keeps its inputs as they were (it may be restarting);
            // one that comes back is read at once.
            guard args.count == 3, let name = args[0].text, let owner = args[2].text, !owner.isEmpty else { return }
            try read(name, on: bus)
        case (BusConnection.properties, "PropertiesChanged"):
            guard args.count >= 2, let changed = args[1].dict else { return }
            let invalidated = Set((args.count > 2 ? args[2] : .array([])).stringList)
            if args[0].text == BusConnection.Focus.notifications {
                if let on = changed["Inhibited"]?.flag { book.set(.notifications, on, at: now) }
                else if invalidated.contains("Inhibited") { try read(BusConnection.Focus.notifications, on: bus) }
            } else if args[0].text == BusConnection.Focus.logindSession, signal.path == sessionPath {
                if let locked = changed["LockedHint"]?.flag { book.set(.logindLocked, locked, at: now) }
                if let idle = changed["IdleHint"]?.flag { book.set(.logindIdle, idle, at: now) }
            }
        case (BusConnection.Focus.screenSaver, "ActiveChanged"):
            // Sent on both object paths: the second finds the state already set and changes nothing.
            if let on = args.first?.flag { book.set(.screensaver, on, at: now) }
        case ("ca.desrt.dconf.Writer", "Notify"):
            if BusConnection.touchesShowBanners(args) { try read(BusConnection.Focus.dconf, on: bus) }
        case (BusConnection.Focus.xfconf, "PropertyChanged"), (BusConnection.Focus.xfconf, "PropertyRemoved"):
            guard args.count >= 2, args[1].text == BusConnection.Focus.notifydProperty else { return }
            book.set(.xfce, signal.member == "PropertyChanged" ? args.count > 2 && args[2].flag == true : false, at: now)
        default:
            break
        }
    }
}
