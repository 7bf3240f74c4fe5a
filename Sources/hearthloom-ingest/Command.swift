import IngestCore

/// One subcommand: its help and what it does. `run` returns the exit code.
struct Command {
    var name: String
    var usage: String
    var summary: String
    var details: String = ""
    var options: [OptionSpec] = []
    /// What its positional arguments are, for shell completion.
    var positional: Completion = .none
    /// Runs on the caller's thread (see `runMain`) until it first suspends.
    var run: nonisolated(nonsending) @Sendable (ParsedArguments, Agent) async throws(AgentError) -> ExitCode
}

let commands: [Command] = [
    PairCommand.command, RunCommand.command, RunCommand.resync, CaptureCommand.command,
    DrainCommand.command, WatchCommand.command, StatusCommand.command, AdaptersCommand.command, DoctorCommand.command,
    CompletionsCommand.command,
]
