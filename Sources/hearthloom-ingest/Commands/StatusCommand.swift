import FoundationEssentials
import IngestCore

enum StatusCommand {
    static let command = Command(
        name: "status",
        usage: "status [--json]",
        summary: "Show the node, pairing, each adapter, the outbox and dead letters.",
        options: [OptionSpec(long: "json", help: "print as JSON")],
        run: { args, agent throws(AgentError) in
            let report = try agent.status()
            if args.flag("json") {
                Terminal.writeStdout(String(decoding: report.json.encoded, as: UTF8.self) + "\n")
            } else {
                Terminal.writeStdout(Output.statusTable(report))
            }
            return .ok
        })
}

enum AdaptersCommand {
    static let command = Command(
        name: "adapters",
        usage: "adapters [TYPE]",
        summary: "List the adapter types this build has (or one) and the config keys each takes.",
        positional: .adapterType,
        run: { args, agent throws(AgentError) in
            guard args.positionals.count <= 1 else { throw AgentError(.usage, "name at most one adapter type") }
            var types = agent.registry.types
            if let name = args.positionals.first {
                guard let t = agent.registry.type(named: name) else {
                    throw AgentError(.usage, "no adapter type \(name); this build has \(types.map { $0.type }.joined(separator: ", "))")
                }
                types = [t]
            }
            var out = "Adapter instances live in \(agent.paths.adaptersDir)/NAME.conf, one [Adapter] section each.\n"
            out += "Every type takes:\n"
            for key in AdapterConfig.commonKeys { out += "    " + key.usageLine + "\n" }
            for t in types {
                out += "\n\(t.type)  (source \(t.source)): \(t.summary)\n"
                for key in t.configKeys { out += "    " + key.usageLine + "\n" }
            }
            guard args.positionals.isEmpty else { Terminal.writeStdout(out); return .ok }
            out += "\ncapture  (source linux-capture): built in; `hearthloom-ingest capture` queues notes, no config needed.\n"
            out += "\nnode.conf [Node] keys:\n"
            for key in NodeConfig.keys { out += "    " + key.usageLine + "\n" }
            Terminal.writeStdout(out)
            return .ok
        })
}
