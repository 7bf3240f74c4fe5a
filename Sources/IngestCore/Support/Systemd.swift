import CSystemd

/// The service manager's notification socket (`Type=notify`), through libsystemd's `sd_notify`.
/// Outside systemd (`$NOTIFY_SOCKET` unset) every call is a no-op.
public enum Systemd {
    /// Sends one or more `KEY=value` lines, e.g. `READY=1` or `STATUS=…`.
    public static func notify(_ state: String) {
        _ = csystemd_notify(state)
    }

    /// Half the watchdog interval systemd expects pings at (`WatchdogSec=`), or nil when it is off.
    public static var watchdogPingInterval: Double? {
        var usec: UInt64 = 0
        guard csystemd_watchdog_enabled(&usec) > 0, usec > 0 else { return nil }
        return Double(usec) / 2_000_000
    }
}
