@preconcurrency import Dispatch
import FoundationEssentials
import IngestCore
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

enum WatchCommand {
    static let command = Command(
        name: "watch",
        usage: "watch [--interval DURATION] [--send-every DURATION]",
        summary: "Run until stopped: rescan adapters on an interval and send what is queued as it comes.",
        details: """
            Every --interval (default 15min) the enabled adapters are scanned; every --send-every (default 10s)
            the outbox is drained, so captures made while offline go out when the node is back.
            Under systemd (Type=notify) it reports READY, STATUS and WATCHDOG. SIGTERM or SIGINT stops it:
            the current step finishes, one last drain runs, and it exits 0. Everything is in the state
            store at all times, so a kill loses nothing either.
            """,
        options: [
            OptionSpec(long: "interval", value: "DURATION", help: "how often to rescan the adapters (e.g. 5min)"),
            OptionSpec(long: "send-every", value: "DURATION", help: "how often to drain the outbox (e.g. 10s)"),
        ],
        run: { args, agent throws(AgentError) in
            func duration(_ name: String, _ fallback: Double) throws(AgentError) -> Double {
                guard let text = args.value(name) else { return fallback }
                guard let seconds = ConfigSection.parseDuration(text), seconds > 0 else {
                    throw AgentError(.usage, "--\(name) expects a duration such as 30s or 5min, found \(text)")
                }
                return seconds
            }
            let interval = try duration("interval", 900)
            let sendEvery = try duration("send-every", 10)
            let configs = try agent.adapterConfigs().filter(\.enabled)
            let store = try agent.openStore()
            let node = try agent.nodeConfig()
            let gate = try agent.gate(store: store, node: node)
            let stop = StopSignal()

            Systemd.notify("READY=1\nSTATUS=watching \(configs.count) adapters, sending to \(await gate.nodeName)")
            Log.notice("watching \(configs.map(\.name).joined(separator: ", ")); rescanning every \(Int(interval)) s")
            let clock = ContinuousClock()
            var nextScan = clock.now
            var nextPing = clock.now
            let pingEvery = Systemd.watchdogPingInterval        // fixed for the life of the service
            var failures = false
            while !stop.requested {
                if clock.now >= nextScan {
                    let results = await agent.scan(configs, store: store, dryRun: false)
                    failures = results.contains { $0.error != nil }
                    nextScan = clock.now + .seconds(interval)
                }
                let report = await gate.drain(DrainPolicy(maxWait: min(node.maxWait, sendEvery), lockWait: 0))
                if report.deliveredTotal > 0 { Log.info("sent \(report.deliveredTotal) (\(report.accepted) accepted)") }
                if report.stop == .unauthorized { Systemd.notify("STATUS=the node refused the token; pair again") }
                // Sleep in short steps so a signal or the watchdog is answered promptly.
                let wake = min(clock.now + .seconds(sendEvery), nextScan)
                while !stop.requested && clock.now < wake {
                    if let ping = pingEvery, clock.now >= nextPing {
                        Systemd.notify("WATCHDOG=1")
                        nextPing = clock.now + .seconds(ping)
                    }
                    try? await Task.sleep(for: .milliseconds(200))
                }
            }
            Systemd.notify("STOPPING=1")
            Log.notice("stopping: sending what is queued")
            _ = await gate.drain(DrainPolicy(maxWait: 2, lockWait: 2))
            return failures ? .someFailed : .ok
        })
}

/// SIGTERM and SIGINT, turned into a flag the watch loop polls. libdispatch owns the signals
/// once their default action is ignored, so a second signal is not fatal mid-drain.
final class StopSignal: Sendable {
    private final class Flag: Sendable { let raised = Atomic<Bool>(false) }
    private let flag = Flag()
    private let sources: [any DispatchSourceSignal]

    init() {
        let flag = self.flag
        sources = [SIGTERM, SIGINT].map { sig in
            signal(sig, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
            source.setEventHandler { flag.raised.store(true, ordering: .relaxed) }
            source.resume()
            return source
        }
    }

    var requested: Bool { flag.raised.load(ordering: .relaxed) }
}
