import FoundationEssentials

/// The services the focus adapter reads, and how. Every read answers nil when the service is
/// not on the bus (or does not have the property): the input then keeps the state it had.
extension BusConnection {
    enum Focus {
        static let notifications = "org.freedesktop.Notifications"
        static let notificationsPath = "/org/freedesktop/Notifications"
        static let screenSaver = "org.freedesktop.ScreenSaver"
        /// KDE answers on both and signals `ActiveChanged` on both; GNOME on the first.
        static let screenSaverPaths = ["/org/freedesktop/ScreenSaver", "/ScreenSaver"]
        static let xfconf = "org.xfce.Xfconf"
        static let xfconfPath = "/org/xfce/Xfconf"
        static let notifydChannel = "xfce4-notifyd"
        static let notifydProperty = "/do-not-disturb"
        static let logind = "org.freedesktop.login1"
        static let logindSession = "org.freedesktop.login1.Session"
        static let dconf = "ca.desrt.dconf"
        static let showBanners = "/org/gnome/desktop/notifications/show-banners"

        /// The services whose coming and going matter, by bus.
        static let sessionServices = [notifications, screenSaver, xfconf, dconf]
        static let systemServices = [logind]
    }

    /// Match rules for everything `follow` reacts to on this bus.
    var focusMatchRules: [String] {
        let services = kind == .session ? Focus.sessionServices : Focus.systemServices
        var rules = services.map {
            "type='signal',sender='org.freedesktop.DBus',interface='org.freedesktop.DBus',member='NameOwnerChanged',arg0='\($0)'"
        }
        switch kind {
        case .session:
            rules += [
                "type='signal',interface='\(BusConnection.properties)',member='PropertiesChanged',path='\(Focus.notificationsPath)',arg0='\(Focus.notifications)'",
                "type='signal',interface='\(Focus.screenSaver)',member='ActiveChanged'",
                "type='signal',interface='\(Focus.xfconf)',member='PropertyChanged',arg0='\(Focus.notifydChannel)'",
                "type='signal',interface='\(Focus.xfconf)',member='PropertyRemoved',arg0='\(Focus.notifydChannel)'",
                "type='signal',interface='ca.desrt.dconf.Writer',member='Notify'",
            ]
        case .system:
            rules.append("type='signal',interface='\(BusConnection.properties)',member='PropertiesChanged',arg0='\(Focus.logindSession)'")
        }
        return rules
    }

    /// A notification server's `Inhibited` (KDE Plasma, and servers that follow it).
    func notificationsInhibited() throws(BusError) -> Bool? {
        try BusConnection.unlessGone { () throws(BusError) in
            try property(Focus.notifications, Focus.notificationsPath, Focus.notifications, "Inhibited")?.flag
        } ?? nil
    }

    /// `GetActive` on the first ScreenSaver path that answers.
    func screenSaverActive() throws(BusError) -> Bool? {
        for path in Focus.screenSaverPaths {
            if let active = try BusConnection.unlessGone({ () throws(BusError) in try call(Focus.screenSaver, path, Focus.screenSaver, "GetActive").first?.flag }) ?? nil {
                return active
            }
        }
        return nil
    }

    /// xfce4-notifyd's `/do-not-disturb` through xfconfd; a property never set is off.
    func xfceDoNotDisturb() throws(BusError) -> Bool? {
        guard try hasOwner(Focus.xfconf) else { return nil }
        return try BusConnection.unlessGone { () throws(BusError) in
            try call(Focus.xfconf, Focus.xfconfPath, Focus.xfconf, "GetProperty", [Focus.notifydChannel, Focus.notifydProperty]).first?.flag
        } ?? false
    }

    /// GNOME's `org.gnome.desktop.notifications show-banners` (false: do not disturb), from the
    /// user's dconf database; nil outside a GNOME session (`$XDG_CURRENT_DESKTOP`), where an old
    /// value left in dconf means nothing. A key never set is its schema default, true.
    static func gnomeDoNotDisturb() -> Bool? {
        let desktops = (ProcessInfo.processInfo.environment["XDG_CURRENT_DESKTOP"] ?? "").lowercased().split(separator: ":")
        guard desktops.contains("gnome") else { return nil }
        return !(DconfDatabase.boolean(Focus.showBanners) ?? true)
    }

    /// Whether a dconf `Notify(prefix, paths, tag)` may have changed `show-banners`: a path names
    /// the key itself or a folder above it (a reset of a whole folder).
    static func touchesShowBanners(_ arguments: [BusValue]) -> Bool {
        guard arguments.count >= 2, let prefix = arguments[0].text else { return false }
        return arguments[1].stringList.contains { Focus.showBanners.hasPrefix(prefix + $0) }
    }

    /// logind's object for the user's session: the caller's, or (for a `systemd --user` service,
    /// which is in no session) the user's graphical one, as `GetSession("auto")` resolves it.
    func logindSessionPath() throws(BusError) -> String? {
        try BusConnection.unlessGone { () throws(BusError) in
            try call(Focus.logind, "/org/freedesktop/login1", "org.freedesktop.login1.Manager", "GetSession", ["auto"]).first?.text
        } ?? nil
    }

    /// `LockedHint` or `IdleHint` of a logind session.
    func logindHint(_ name: String, at path: String) throws(BusError) -> Bool? {
        try BusConnection.unlessGone { () throws(BusError) in
            try property(Focus.logind, path, Focus.logindSession, name)?.flag
        } ?? nil
    }

    func hasOwner(_ name: String) throws(BusError) -> Bool {
        let answer = try BusConnection.unlessGone { () throws(BusError) in
            try call(BusConnection.daemon, "/org/freedesktop/DBus", BusConnection.daemon, "NameHasOwner", [name]).first?.flag
        }
        return (answer ?? nil) ?? false
    }
}

extension BusValue {
    var flag: Bool? { if case .bool(let b) = self { return b }; return nil }
}
