import FoundationEssentials
import IngestCore
#if canImport(Glibc)
import Glibc
#endif

/// `hearthloom-ingest COMMAND [OPTIONS]`: argument parsing and output only; the work is in IngestCore.
func mainUsage() -> String {
    var out = """
        usage: hearthloom-ingest COMMAND [OPTIONS]

        Feeds your Hearthloom node from what this Linux machine sees.

        commands:

        """
    for c in commands { out += "  " + c.name.padding(11) + " " + c.summary + "\n" }
    out += "\nRun `hearthloom-ingest COMMAND --help` for a command's options.\n"
    return out
}

/// Runs on the main thread, as the top-level code does, until the command first suspends:
/// a `capture` commits its note before any Dispatch worker thread is started (nonsending).
nonisolated(nonsending) func runMain() async -> Int32 {
    var args = Array(CommandLine.arguments.dropFirst())
    if args.isEmpty || args == ["--help"] || args == ["-h"] || args == ["help"] {
        Terminal.writeStdout(mainUsage()); return args.isEmpty ? ExitCode.usage.rawValue : 0
    }
    if args == ["--version"] { Terminal.writeStdout("hearthloom-ingest \(AgentVersion.string)\n"); return 0 }
    if args.count == 2, args[0] == "--man-page" { return printManPage(readme: args[1]) }
    // Global options may come before the command.
    var leading: [String] = []
    while let first = args.first, first.hasPrefix("-") {
        leading.append(args.removeFirst())
        if ["--config-dir", "--state-dir"].contains(leading.last!), !args.isEmpty { leading.append(args.removeFirst()) }
    }
    guard let name = args.first, let command = commands.first(where: { $0.name == name }) else {
        Terminal.writeStderr("hearthloom-ingest: unknown command \(args.first ?? "(none)")\n" + mainUsage())
        return ExitCode.usage.rawValue
    }
    do {
        let parsed = try ArgumentParser.parse(leading + Array(args.dropFirst()), options: command.options)
        if parsed.flag("help") { Terminal.writeStdout(ArgumentParser.help(command)); return 0 }
        if parsed.flag("quiet") { Log.level = .error }
        if parsed.flag("verbose") { Log.level = parsed.flag("verbose2") ? .debug : .info }
        let agent = Agent(paths: Paths(configDir: parsed.value("config-dir"), stateDir: parsed.value("state-dir")),
                          registry: AdapterRegistry(registeredAdapters))
        return try await command.run(parsed, agent).rawValue
    } catch {
        if error.code == .usage {
            Terminal.writeStderr("hearthloom-ingest \(name): \(error.message)\nRun `hearthloom-ingest \(name) --help` for usage.\n")
        } else {
            Log.error(error.message)
        }
        return error.code.rawValue
    }
}

/// `--man-page README.md`: the build step `make install` (and the man page test) runs.
func printManPage(readme path: String) -> Int32 {
    guard let readme = try? FileSystem.readText(path) else {
        Terminal.writeStderr("hearthloom-ingest: cannot read \(path)\n"); return ExitCode.usage.rawValue
    }
    let epoch = FileSystem.environment("SOURCE_DATE_EPOCH").flatMap(Double.init)
    let page = ManPage(commands: commands, global: ArgumentParser.globalOptions, types: registeredAdapters, readme: readme,
                       date: epoch.map { Date(timeIntervalSince1970: $0) } ?? Date())
    Terminal.writeStdout(page.roff)
    return 0
}

let code = await runMain()
// A job still on a worker thread (a follower letting go of its bus, a parse whose reader stopped)
// gets a bounded moment to end, and is named if it does not.
let unfinished = WorkerThreads.shutdown(within: .seconds(5))
if !unfinished.isEmpty { Log.warning("ending with work still running on worker threads: \(unfinished.joined(separator: ", "))") }
exit(code)
