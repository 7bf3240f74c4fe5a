import FoundationEssentials
import IngestCore

/// Why geoclue did not serve us, and how to put it right: the reader says it in one line,
/// doctor as a check.
struct GeoClueRefusal {
    /// What geoclue 2.6 needs before it answers `GetClient`.
    static let agentMissing = "geoclue 2.6 serves apps only while a location agent for this user runs "
        + "(GNOME Shell, Phosh, or /usr/libexec/geoclue-2.0/demos/agent on a machine without a desktop)"

    let finding: String
    let fix: String

    init(_ error: BusError) {
        let message = error.message ?? error.description
        switch error.name {
        case "org.freedesktop.DBus.Error.AccessDenied" where message.contains("Geolocation disabled"):
            finding = "geoclue: \(message): location services are switched off"
            fix = "switch location services on in the desktop's privacy settings"
        case "org.freedesktop.DBus.Error.AccessDenied":
            finding = "geoclue refused \(BusConnection.desktopID) (\(message))"
            fix = "add to /etc/geoclue/geoclue.conf a section [\(BusConnection.desktopID)] with allowed=true, system=true, users= "
                + "(empty: every user), then restart geoclue"
        case "org.freedesktop.DBus.Error.ServiceUnknown", "org.freedesktop.DBus.Error.NameHasNoOwner":
            finding = "geoclue is not running and the system bus cannot start it"
            fix = "install it: sudo apt install geoclue-2.0"
        default:
            finding = "geoclue: \(error)"
            fix = "see what geoclue says: journalctl -u geoclue"
        }
    }

    var line: String { "\(finding); fix: \(fix)" }
}

/// `doctor`'s look at geoclue: asks for a client and starts it as the adapter does (the same
/// DesktopId and accuracy), each with a bounded wait, then stops and deletes it, so nothing is
/// left running. It blocks: call it off the cooperative pool.
enum GeoClueDoctor {
    /// Seconds to wait for each of `GetClient` and `Start`.
    static let wait = 5.0

    static func check(_ request: GeoClueRequest) -> DoctorCheck {
        let bus: BusConnection
        do throws(BusError) { bus = try BusConnection(.system) } catch {
            return .fail("system bus", "not reachable (\(error.description))",
                         fix: "geoclue serves on the system bus: start dbus (systemctl start dbus) or correct DBUS_SYSTEM_BUS_ADDRESS")
        }
        let control = LoopControl()
        do throws(BusError) {
            guard let client = try reply(to: try bus.requestClient(), on: bus, control) else {
                return .warn("geoclue", "no location agent registered: geoclue held back our client for \(Int(wait)) s",
                             fix: "log in to the desktop, or start an agent: " + GeoClueRefusal.agentMissing)
            }
            guard case .string(let path)? = try client.get().first else {
                return .fail("geoclue", "GetClient answered without a client path", fix: "see what geoclue says: journalctl -u geoclue")
            }
            defer { bus.releaseClient(path) }
            guard let started = try reply(to: try bus.startClient(path, request), on: bus, control) else {
                return .warn("geoclue", "no answer to Start within \(Int(wait)) s: the location agent may be asking you",
                             fix: "allow \(BusConnection.desktopID) in the desktop's location prompt, then run doctor again")
            }
            _ = try started.get()
            return .ok("geoclue", "lets \(BusConnection.desktopID) in (a client was started, then stopped and deleted)")
        } catch {
            let refusal = GeoClueRefusal(error)
            return .fail("geoclue", refusal.finding, fix: refusal.fix)
        }
    }

    /// The reply to the call sent with `cookie`, or nil when none came within `wait` seconds.
    private static func reply(to cookie: UInt64, on bus: BusConnection, _ control: LoopControl) throws(BusError) -> Result<[BusValue], BusError>? {
        let deadline = ContinuousClock.now + .seconds(wait)
        while true {
            while let message = try bus.nextMessage() {
                if case .reply(let answered, let result) = message, answered == cookie { return result }
            }
            guard ContinuousClock.now < deadline else { return nil }
            control.wait(on: [bus], until: deadline)
        }
    }
}
