// swift-corelibs-libdispatch does not mark its DispatchSource types Sendable (Apple's does).
@preconcurrency import Dispatch
import FoundationEssentials
import IngestCore
#if canImport(Glibc)
import Glibc
#endif

enum WatchCommand {
    static let command = Command(
        name: "watch",
        usage: "watch [--interval DURATION] [--send-every DURATION]",
        summary: "Run until stopped: rescan adapters on an interval and send what is queued as it comes.",
        details: """
            Live adapters (gpsd, mpris) follow their source the whole time; the other enabled adapters are
            rescanned when their folders change (inotify, once things are quiet for 2 s) and every --interval
            (default 15min). What they queue is sent at once, and while anything is left in the outbox it is
            retried every --send-every (default 10s). Idle, it does not wake.
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
            let watcher = try Watcher(agent: agent, options: .init(interval: interval, sendEvery: sendEvery))
            let signals = StopSignal { watcher.stop() }
            defer { signals.cancel() }
            return await watcher.run()
        })
}

/// SIGTERM and SIGINT, turned into a call to `handler`. libdispatch owns the signals once their
/// default action is ignored, so a second signal is not fatal mid-drain.
final class StopSignal: Sendable {
    private let sources: [any DispatchSourceSignal]

    init(_ handler: @escaping @Sendable () -> Void) {
        sources = [SIGTERM, SIGINT].map { sig in
            signal(sig, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
            source.setEventHandler(handler: handler)
            source.resume()
            return source
        }
    }

    /// Stops turning the signals into calls.
    func cancel() { for source in sources { source.cancel() } }
}
