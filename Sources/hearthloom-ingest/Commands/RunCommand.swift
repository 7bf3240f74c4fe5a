import FoundationEssentials
import IngestCore

enum RunCommand {
    static let command = Command(
        name: "run",
        usage: "run [--adapter NAME]… [--dry-run] [--json]",
        summary: "One pass: scan every enabled adapter (or those named), then drain.",
        details: "With --dry-run nothing changes: each item that would be queued is printed as one JSON line,\n"
            + "{\"adapter\": NAME, \"endpoint\": E, \"source\": S, \"item\": {…}}. This is what the systemd timer runs.",
        options: [
            OptionSpec(long: "adapter", value: "NAME", repeated: true, help: "scan only this adapter instance (adapters.d/NAME.conf)",
                       completes: .instance),
            OptionSpec(long: "dry-run", help: "print what would be sent; change nothing"),
            OptionSpec(long: "json", help: "print the summary as JSON"),
        ],
        run: { args, agent throws(AgentError) in
            guard args.positionals.isEmpty else { throw AgentError(.usage, "unexpected argument \(args.positionals[0])") }
            return try await pass(agent, names: args.all("adapter"), dryRun: args.flag("dry-run"), json: args.flag("json"), resync: false)
        })

    static let resync = Command(
        name: "resync",
        usage: "resync NAME [--json]",
        summary: "Forget NAME's anchor, scan everything again, drain.",
        details: "The node answers re-sent items as duplicates, so nothing doubles.",
        options: [OptionSpec(long: "json", help: "print the summary as JSON")],
        positional: .instance,
        run: { args, agent throws(AgentError) in
            guard args.positionals.count == 1 else { throw AgentError(.usage, "name one adapter instance to resync") }
            return try await pass(agent, names: args.positionals, dryRun: false, json: args.flag("json"), resync: true)
        })

    static func pass(_ agent: Agent, names: [String], dryRun: Bool, json: Bool, resync: Bool) async throws(AgentError) -> ExitCode {
        let selected = try agent.select(names)
        if dryRun {
            _ = try agent.nodeConfig()   // a broken node.conf is reported before any scanning
            let results = try await agent.preview(selected, show: { Terminal.writeStdout($0) })
            for r in results { Log.notice("\(r.adapter): \(r.queued) items would be queued" + (r.warnings > 0 ? ", \(r.warnings) warnings" : "")) }
            return results.contains { $0.error != nil } ? .someFailed : .ok
        }
        let session = try agent.session()
        if resync { for config in selected { try agent.forgetProgress(of: config, in: session.store) } }
        let (results, report) = await agent.scanAndSend(selected, store: session.store, gate: session.gate, policy: session.policy)
        Output.printPass(results: results, report: report, node: await session.gate.nodeName, json: json)
        let scanFailed = results.contains { $0.error != nil }
        return report.exitCode == .ok && scanFailed ? .someFailed : report.exitCode
    }
}

enum DrainCommand {
    static let command = Command(
        name: "drain",
        usage: "drain [--json]",
        summary: "Only drain the outbox: send what is queued.",
        options: [OptionSpec(long: "json", help: "print the summary as JSON")],
        run: { args, agent throws(AgentError) in
            guard args.positionals.isEmpty else { throw AgentError(.usage, "unexpected argument \(args.positionals[0])") }
            let session = try agent.session()
            let report = await session.gate.drain(session.policy)
            Output.printPass(results: [], report: report, node: await session.gate.nodeName, json: args.flag("json"))
            return report.exitCode
        })
}
