import Dispatch
import FoundationEssentials
import IngestCore

/// `Type=mpris`: plays from the media players on the D-Bus session bus, counted the way
/// scrobblers count them (see PlayerTimeline), sent as `media` items.
///
/// `follow` (inside `watch`) sees every signal; `scan` (a timer `run`) looks at each player once
/// and counts the position's advance since the last look. Both keep one timeline per player
/// in the anchor, so a play in progress survives a restart and either can pick it up.
public struct MPRISAdapter: LiveAdapter {
    public static let type = "mpris"
    public static let summary = "plays (title, artist, album, seconds played) from MPRIS media players on the session bus"
    enum Key {
        static let player = ConfigKey("Player", repeated: .string, "only players whose bus name or Identity matches this glob")
        static let ignorePlayer = ConfigKey("IgnorePlayer", repeated: .string, "leave out players whose bus name or Identity matches this glob")
        static let ignorePlayers = ConfigKey("IgnorePlayers", repeated: .string, default: ["*.playerctld", "*.kdeconnect.*"],
                                             "leave out players whose whole bus name matches this glob: those that show other players' plays; IgnorePlayers= alone clears the list")
        static let minPlayedPercent = ConfigKey("MinPlayedPercent", .integer, default: "50",
                                                "a play counts once this share of the track was played (1–100)")
        static let minPlayedTime = ConfigKey("MinPlayedTime", .duration, default: "4min", "…or once this much was played, whichever comes first")
        static let minTrackLength = ConfigKey("MinTrackLength", .duration, default: "30s", "shorter tracks never count")
    }
    public static let configKeys: [any ConfigKeyProtocol] = [
        Key.player, Key.ignorePlayer, Key.ignorePlayers, Key.minPlayedPercent, Key.minPlayedTime, Key.minTrackLength,
    ]
    public static let sampleConfig = String(decoding: PackageResources.mpris_conf, as: UTF8.self)

    let rules: PlayRules
    let filter: PlayerFilter
    /// The instance name, for log lines.
    let label: String

    public init(config: AdapterConfig) throws(ConfigError) {
        let section = config.section
        let percent = try section.value(Key.minPlayedPercent, where: { (1...100).contains($0) }, else: { "expected 1 to 100, found \($0)" })
        let minPlayed = try section.value(Key.minPlayedTime, where: { $0 > 0 }, else: { _ in "must be more than 0" })
        rules = PlayRules(minPlayedFraction: Double(percent) / 100, minPlayedTime: minPlayed, minTrackLength: section[Key.minTrackLength])
        filter = PlayerFilter(allow: section[Key.player], deny: section[Key.ignorePlayer], denyBusNames: section[Key.ignorePlayers])
        label = config.name
    }

    // MARK: - Timer

    /// What one look at the bus found.
    enum Survey: Sendable {
        case noBus(String)
        case surveyed(FollowCommit?)
    }

    public func scan(since anchor: Anchor, into sink: some ItemSink) async throws {
        let (rules, filter) = (rules, filter)
        // The calls block (each up to its timeout when a player hangs): off the cooperative pool.
        let survey = await WorkerThreads.run("mpris.survey") { () -> Survey in
            do throws(BusError) {
                let bus = try BusConnection(.session)
                var book = PlayerBook(anchor: anchor, rules: rules, filter: filter)
                _ = try book.survey(bus)
                return .surveyed(book.take())
            } catch {
                return .noBus(error.description)
            }
        }
        switch survey {
        case .noBus(let reason): await sink.warn("no session bus to look at (\(reason)); nothing recorded")
        case .surveyed(let commit?): try await sink.commit(commit.items, anchor: commit.anchor)
        case .surveyed(nil): break
        }
    }

    /// `doctor`: the session bus answers, and which players are on it now.
    public func doctorChecks() async -> [DoctorCheck] {
        await DoctorCheck.onBus(.session, unreachableFix: "run doctor inside your desktop session; mpris follows players on its session bus (DBUS_SESSION_BUS_ADDRESS)") {
            (bus) throws(BusError) in
            let players = try bus.playerNames()
            return [.ok("session bus", "answers; players now: " + (players.isEmpty ? "none" : players.map(BusConnection.shortName).joined(separator: ", ")))]
        }
    }

    // MARK: - Watch

    public func follow(from anchor: Anchor, into sink: some ItemSink) async throws {
        let book = PlayerBook(anchor: anchor, rules: rules, filter: filter)
        let label = label
        try await followOnBusThread(label: "mpris.\(label)", into: sink) { control, emit in
            PlayerFollower(book: book, control: control, label: label, emit: emit).run()
        }
    }
}
