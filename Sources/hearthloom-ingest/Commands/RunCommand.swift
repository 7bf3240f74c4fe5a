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
            OptionSpec(long: "adapter", value: "NAME", repeated: true, help: "scan only this adapter instance (adapters.d/NAME.conf)"),
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
        run: { args, agent throws(AgentError) in
            guard args.positionals.count == 1 else { throw AgentError(.usage, "name one adapter instance to resync") }
            return try await pass(agent, names: args.positionals, dryRun: false, json: args.flag("json"), resync: true)
        })

    static func pass(_ agent: Agent, names: [String], dryRun: Bool, json: Bool, resync: Bool) async throws(AgentError) -> ExitCode {
        let all = try agent.adapterConfigs()
        var selected = all.filter(\.enabled)
        if !names.isEmpty {
            selected = []
            for name in names {
                guard let config = all.first(where: { $0.name == name }) else {
                    let known = all.map(\.name).joined(separator: ", ")
                    throw AgentError(.usage, "no adapter instance \(name) in \(agent.paths.adaptersDir)" + (known.isEmpty ? "" : " (have: \(known))"))
                }
                selected.append(config)
            }
        }
        let node = try agent.nodeConfig()   // a broken node.conf is reported before any scanning

        if dryRun {
            let readOnly = try? StateStore(readOnlyAt: agent.paths)
            let results = await agent.scan(selected, store: nil, dryRun: true, readOnlyAnchors: readOnly ?? nil)
            for r in results { Log.notice("\(r.adapter): \(r.queued) items would be queued" + (r.warnings > 0 ? ", \(r.warnings) warnings" : "")) }
            return results.contains { $0.error != nil } ? .someFailed : .ok
        }

        let store = try agent.openStore()
        if resync, let name = names.first {
            do {
                try store.resetAnchor(for: name)
                // Rolled-up items (health days) go out again too; the samples they come from stay.
                if let type = selected.first.flatMap({ agent.registry.type(named: $0.type) }) { try store.resetSampleBuckets(source: type.source) }
            } catch { throw .store(error) }
        }
        let gate = try agent.gate(store: store, node: node)
        let (results, report) = await agent.scanAndSend(selected, store: store, gate: gate, policy: DrainPolicy(maxWait: node.maxWait))
        Output.printPass(results: results, report: report, node: await gate.nodeName, json: json)
        let scanFailed = results.contains { $0.error != nil }
        return report.exitCode == 0 && scanFailed ? .someFailed : ExitCode(rawValue: report.exitCode) ?? .someFailed
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
            let store = try agent.openStore()
            let node = try agent.nodeConfig()
            let gate = try agent.gate(store: store, node: node)
            let report = await gate.drain(DrainPolicy(maxWait: node.maxWait))
            Output.printPass(results: [], report: report, node: await gate.nodeName, json: args.flag("json"))
            return ExitCode(rawValue: report.exitCode) ?? .someFailed
        })
}
