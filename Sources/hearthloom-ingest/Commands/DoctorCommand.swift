import IngestCore

enum DoctorCommand {
    static let command = Command(
        name: "doctor",
        usage: "doctor [--json]",
        summary: "Check the whole setup: one line per check, ok, warn or fail, each with its fix.",
        details: """
            Checks that the config parses, the node answers and the token works, the token and capture-key
            files are 0600 (or the keyring holds them), the state database passes quick_check (with its
            outbox and dead letters), what each enabled adapter needs (its folders, gpsd, the session bus,
            libical, libgps), and the systemd user units. It changes nothing.
            Exit codes: 0 when nothing failed (warnings allowed), 1 when a check failed.
            """,
        options: [OptionSpec(long: "json", help: "print the checks as JSON")],
        run: { args, agent throws(AgentError) in
            guard args.positionals.isEmpty else { throw AgentError(.usage, "unexpected argument \(args.positionals[0])") }
            let report = await agent.doctor()
            if args.flag("json") {
                Terminal.writeStdout(String(decoding: report.json.encoded, as: UTF8.self) + "\n")
            } else {
                Terminal.writeStdout(report.checks.map(line).joined(separator: "\n") + "\n")
            }
            return report.exitCode
        })

    /// `warn  systemd: no user manager (…). Fix: loginctl enable-linger $USER`
    static func line(_ check: DoctorCheck) -> String {
        check.status.rawValue.padding(5) + " " + check.subject + ": " + check.finding + (check.fix.map { ". Fix: " + $0 } ?? "")
    }
}

enum CompletionsCommand {
    static let shells = ["bash", "zsh", "fish"]

    static let command = Command(
        name: "completions",
        usage: "completions bash|zsh|fish",
        summary: "Print a shell completion script (commands, options, adapter instances and types).",
        details: """
            Generated from the command table of this binary, so it always matches it. `make install` puts
            them where each shell looks: bash-completion's completions/, zsh's site-functions/ and fish's
            vendor_completions.d/ under $PREFIX/share. By hand: source <(hearthloom-ingest completions bash).
            """,
        positional: .words(shells),
        run: { args, agent throws(AgentError) in
            guard args.positionals.count == 1, let shell = args.positionals.first, shells.contains(shell) else {
                throw AgentError(.usage, "name one shell: bash, zsh or fish")
            }
            let script = CompletionScript(commands: commands, global: ArgumentParser.globalOptions, types: agent.registry.types.map { $0.type })
            Terminal.writeStdout(shell == "bash" ? script.bash : shell == "zsh" ? script.zsh : script.fish)
            return .ok
        })
}
