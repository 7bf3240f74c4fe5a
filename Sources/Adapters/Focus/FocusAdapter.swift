import FoundationEssentials
import IngestCore

/// `Type=focus`: spans of do-not-disturb, screen lock and idleness, from the session bus
/// (freedesktop Notifications `Inhibited`, GNOME's show-banners, the ScreenSaver, xfce4-notifyd) and
/// logind on the system bus, sent as `focus` items (see ``FocusBook``).
///
/// `follow` (inside `watch`) sees every change as it happens; `scan` (a timer `run`) looks once
/// and can only tell what was on at its looks. Both keep the open spans in the anchor.
public struct FocusAdapter: LiveAdapter {
    public static let type = "focus"
    public static let summary = "do-not-disturb, screen-lock and idle spans from the session bus (KDE/freedesktop, GNOME, ScreenSaver, XFCE) and logind"
    enum Key {
        static let minSpan = ConfigKey("MinSpan", .duration, default: "5s", "shorter spans are flicker and are not sent")
    }
    public static let configKeys: [any ConfigKeyProtocol] = [Key.minSpan]
    public static let sampleConfig = String(decoding: PackageResources.focus_conf, as: UTF8.self)

    let minSpan: Double
    /// The instance name, for log lines.
    let label: String

    public init(config: AdapterConfig) throws(ConfigError) {
        minSpan = try config.section.value(Key.minSpan, where: { $0 >= 0 }, else: { _ in "must not be negative" })
        label = config.name
    }

    public func scan(since anchor: Anchor, into sink: some ItemSink) async throws {
        let (minSpan, label) = (minSpan, label)
        // The calls block (each up to its timeout when a service hangs): off the cooperative pool.
        let commit = await WorkerThreads.run("focus.survey") { () -> FollowCommit? in
            let taken = Locked<FollowCommit?>(nil)
            FocusFollower(book: FocusBook(anchor: anchor, minSpan: minSpan), control: LoopControl(), label: label) { commit in
                taken.withLock { $0 = commit }
            }.lookOnce()
            return taken.withLock { $0 }
        }
        if let commit { try await sink.commit(commit.items, anchor: commit.anchor) }
    }

    /// `doctor`: the session bus is there, and which sources answer on it and on the system bus.
    public func doctorChecks() async -> [DoctorCheck] {
        let session = await DoctorCheck.onBus(.session, unreachableFix: "run doctor inside your desktop session; focus follows "
                                              + "do-not-disturb and the screen saver on its session bus (DBUS_SESSION_BUS_ADDRESS)") {
            (bus) throws(BusError) in [.ok("session bus", "answers")] + (try bus.focusSessionChecks())
        }
        let system = await DoctorCheck.onBus(.system, unreachableFix: "screen lock and idleness come from logind on the system bus; "
                                             + "run doctor where it is reachable (DBUS_SYSTEM_BUS_ADDRESS)") {
            (bus) throws(BusError) in [try bus.logindCheck()]
        }
        return session + system
    }

    public func follow(from anchor: Anchor, into sink: some ItemSink) async throws {
        let book = FocusBook(anchor: anchor, minSpan: minSpan)
        let label = label
        try await followOnBusThread(label: "focus.\(label)", into: sink) { control, emit in
            FocusFollower(book: book, control: control, label: label, emit: emit).run()
        }
    }
}
