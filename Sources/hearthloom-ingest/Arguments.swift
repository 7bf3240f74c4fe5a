import IngestCore

/// What a shell offers for an option's value or a positional argument.
enum Completion: Equatable {
    case none
    case file
    case directory
    /// Adapter instance names: `adapters.d/*.conf` of the config dir in use.
    case instance
    /// The adapter types this build has.
    case adapterType
    case words([String])
}

/// One option a command takes.
struct OptionSpec {
    var long: String
    var short: Character? = nil
    /// The value's placeholder (`NAME`); nil for a flag.
    var value: String? = nil
    var repeated = false
    var help: String
    var completes: Completion = .none
}

/// What the command line said, after checking it against a command's options.
struct ParsedArguments {
    var flags: Set<String> = []
    var values: [String: [String]] = [:]
    var positionals: [String] = []

    func flag(_ name: String) -> Bool { flags.contains(name) }
    func value(_ name: String) -> String? { values[name]?.last }
    func all(_ name: String) -> [String] { values[name] ?? [] }
}

/// A small, strict parser: `--opt value`, `--opt=value`, `-x`, `--` ends options, `-` is a positional.
enum ArgumentParser {
    static let globalOptions: [OptionSpec] = [
        OptionSpec(long: "config-dir", value: "DIR", help: "configuration folder (default $HEARTHLOOM_CONFIG_DIR, else $XDG_CONFIG_HOME/hearthloom)",
                   completes: .directory),
        OptionSpec(long: "state-dir", value: "DIR", help: "state folder (default $HEARTHLOOM_STATE_DIR, else $XDG_STATE_HOME/hearthloom)",
                   completes: .directory),
        OptionSpec(long: "verbose", short: "v", help: "log more (info; twice for debug)"),
        OptionSpec(long: "quiet", short: "q", help: "log only errors"),
        OptionSpec(long: "help", short: "h", help: "show this help"),
    ]

    static func parse(_ args: [String], options: [OptionSpec]) throws(AgentError) -> ParsedArguments {
        let specs = globalOptions + options
        var parsed = ParsedArguments()
        var i = 0
        var optionsEnded = false
        func spec(long: String) -> OptionSpec? { specs.first { $0.long == long } }
        while i < args.count {
            let arg = args[i]
            i += 1
            if optionsEnded || arg == "-" || !arg.hasPrefix("-") { parsed.positionals.append(arg); continue }
            if arg == "--" { optionsEnded = true; continue }
            var name: String
            var inline: String?
            if arg.hasPrefix("--") {
                let body = arg.dropFirst(2)
                if let eq = body.firstIndex(of: "=") { name = String(body[..<eq]); inline = String(body[body.index(after: eq)...]) }
                else { name = String(body) }
            } else {
                guard arg.count == 2, let s = specs.first(where: { $0.short == arg.last }) else {
                    throw AgentError(.usage, "unknown option \(arg)")
                }
                name = s.long
            }
            guard let s = spec(long: name) else { throw AgentError(.usage, "unknown option --\(name)") }
            if s.value != nil {
                guard let v = inline ?? (i < args.count ? args[i] : nil) else {
                    throw AgentError(.usage, "--\(name) needs a value (\(s.value!))")
                }
                if inline == nil { i += 1 }
                if !s.repeated, parsed.values[name] != nil, !globalOptions.contains(where: { $0.long == name }) {
                    throw AgentError(.usage, "--\(name) given twice")
                }
                parsed.values[name, default: []].append(v)
            } else {
                if inline != nil { throw AgentError(.usage, "--\(name) takes no value") }
                if name == "verbose", parsed.flags.contains("verbose") { parsed.flags.insert("verbose2") }
                parsed.flags.insert(name)
            }
        }
        return parsed
    }

    /// The `--help` text of one command.
    static func help(_ command: Command) -> String {
        var out = "usage: hearthloom-ingest \(command.usage)\n\n\(command.summary)\n"
        if !command.details.isEmpty { out += "\n\(command.details)\n" }
        out += "\noptions:\n"
        for o in command.options + globalOptions {
            var left = "--\(o.long)"
            if let s = o.short { left = "-\(s), " + left }
            if let v = o.value { left += " \(v)" }
            out += "  " + left.padding(28) + " " + o.help + (o.repeated ? " (repeatable)" : "") + "\n"
        }
        return out
    }
}

extension String {
    func padding(_ width: Int) -> String { count >= width ? self : self + String(repeating: " ", count: width - count) }
}
