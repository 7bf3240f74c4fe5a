/// `doctor`'s look at the systemd user units (`systemctl --user show`): installed, enabled, and
/// how the timer's last run ended. Without a user manager (a container, an ssh login without
/// lingering) that is a warning: the agent works, only nothing starts it.
enum SystemdUnits {
    static let timer = "hearthloom-ingest.timer"
    static let service = "hearthloom-ingest.service"
    static let watch = "hearthloom-ingest-watch.service"
    static let properties = ["Id", "LoadState", "UnitFileState", "ActiveState", "Result", "ExecMainStatus", "ExecMainStartTimestamp"]

    static func checks() -> [DoctorCheck] {
        guard let shown = Subprocess.run("systemctl", ["--user", "show", "--property=" + properties.joined(separator: ","), timer, service, watch]) else {
            return [.warn("systemd", "systemctl is not installed, so no timer runs the agent here",
                          fix: "run `hearthloom-ingest run` from cron or by hand")]
        }
        guard shown.status == 0 else {
            let why = shown.status == nil ? "systemctl --user did not answer in time" : firstLine(shown.output)
            return [.warn("systemd", "no systemd user manager to run the units (\(why))",
                          fix: "log in through a session that starts one, or `loginctl enable-linger $USER` on a machine nobody logs in to")]
        }
        return findings(units(from: shown.output))
    }

    /// `systemctl show` prints one `Key=value` block per unit, blocks separated by a blank line.
    static func units(from output: String) -> [String: [String: String]] {
        var out: [String: [String: String]] = [:]
        for block in output.split(separator: "\n\n", omittingEmptySubsequences: true) {
            var values: [String: String] = [:]
            for line in block.split(separator: "\n") {
                guard let eq = line.firstIndex(of: "=") else { continue }
                values[String(line[..<eq])] = String(line[line.index(after: eq)...])
            }
            if let id = values["Id"] { out[id] = values }
        }
        return out
    }

    static func findings(_ units: [String: [String: String]]) -> [DoctorCheck] {
        func loaded(_ unit: String) -> Bool { units[unit]?["LoadState"] == "loaded" }
        func enabled(_ unit: String) -> Bool { units[unit]?["UnitFileState"] == "enabled" }
        guard loaded(timer) || loaded(watch) else {
            return [.warn("systemd", "the user units are not installed, so nothing runs the agent on its own",
                          fix: "`make install`, then `systemctl --user daemon-reload && systemctl --user enable --now \(timer)`")]
        }
        var checks: [DoctorCheck] = []
        if enabled(timer) || enabled(watch) {
            let which = [timer, watch].filter(enabled).joined(separator: " and ")
            checks.append(.ok("systemd", "\(which) installed and enabled"))
        } else {
            checks.append(.warn("systemd", "the units are installed but neither \(timer) nor \(watch) is enabled",
                                fix: "systemctl --user enable --now \(timer)"))
        }
        if enabled(timer), let last = units[service] { checks.append(lastRun(last)) }
        return checks
    }

    /// How the oneshot service the timer starts ended last time.
    static func lastRun(_ unit: [String: String]) -> DoctorCheck {
        let started = unit["ExecMainStartTimestamp"] ?? ""
        guard !started.isEmpty, started != "n/a" else { return .ok("last timer run", "none yet") }
        let result = unit["Result"] ?? "?", status = unit["ExecMainStatus"] ?? "?"
        let journal = "see `journalctl --user -u \(service)`"
        if result == "success" && status == "4" {
            return .warn("last timer run", "\(started): the node was unreachable or refused (exit 4); everything was kept",
                         fix: "check the node line above, or \(journal)")
        }
        if result == "success" { return .ok("last timer run", "\(started): succeeded") }
        return .warn("last timer run", "\(started): failed (Result=\(result), exit status \(status))", fix: journal)
    }

    private static func firstLine(_ text: String) -> String {
        String(text.split(separator: "\n").first ?? "no output").trimmingSpacesAndTabs
    }
}
