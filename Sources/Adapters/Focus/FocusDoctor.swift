import IngestCore

/// `doctor`'s look at the focus adapter's sources: one line each for what answers now. A source
/// that does not answer is a warning, not a failure: each desktop has only some of them.
extension BusConnection {
    func focusSessionChecks() throws(BusError) -> [DoctorCheck] {
        // Only services already running are asked: a call would start an activatable one
        // (xfce4-notifyd on any desktop), and doctor changes nothing.
        let inhibited = try hasOwner(Focus.notifications) ? notificationsInhibited() : nil
        let screenSaver = try hasOwner(Focus.screenSaver) ? screenSaverActive() : nil
        let xfce = try hasOwner(Focus.xfconf) ? xfceDoNotDisturb() : nil
        return [
            inhibited.map { .ok("Notifications", "answers; Inhibited (do not disturb) is \(BusConnection.onOff($0))") }
                ?? .warn("Notifications", "no running notification server with Inhibited answers",
                         fix: "needed only for KDE Plasma's do-not-disturb (or a server with Inhibited): run doctor inside that session"),
            screenSaver.map { .ok("ScreenSaver", "answers; active is \(BusConnection.onOff($0))") }
                ?? .warn("ScreenSaver", "org.freedesktop.ScreenSaver does not answer",
                         fix: "needed only for the screen saver's spans on KDE or GNOME: run doctor inside that session"),
            xfce.map { .ok("xfconfd", "answers; xfce4-notifyd's do-not-disturb is \(BusConnection.onOff($0))") }
                ?? .warn("xfconfd", "org.xfce.Xfconf is not on the bus",
                         fix: "needed only for xfce4-notifyd's do-not-disturb: run doctor inside the XFCE session"),
        ]
    }

    /// logind's session for this user, and its lock and idle hints.
    func logindCheck() throws(BusError) -> DoctorCheck {
        guard let path = try logindSessionPath() else {
            return .warn("logind", "no logind session for this user (GetSession \"auto\")",
                         fix: "screen lock and idleness need a logind session: log in through the display manager or a console")
        }
        let locked = try logindHint("LockedHint", at: path), idle = try logindHint("IdleHint", at: path)
        return .ok("logind", "answers; session \(path): locked \(locked.map(BusConnection.onOff) ?? "unknown"), idle \(idle.map(BusConnection.onOff) ?? "unknown")")
    }

    private static func onOff(_ on: Bool) -> String { on ? "on" : "off" }
}
