import FoundationEssentials
import IngestCore

/// Follows gpsd on a worker thread of its own (libgps calls block), reconnecting with backoff when
/// gpsd is absent or restarts, and when the socket stays silent longer than `silence`.
/// What it reads comes out of `events`, in order.
final class GPSDReader: Sendable {
    let events: AsyncStream<FixSourceEvent>
    private let continuation: AsyncStream<FixSourceEvent>.Continuation
    private let control = LoopControl()

    init(host: String, port: Int, silence: Double) {
        (events, continuation) = AsyncStream.makeStream(of: FixSourceEvent.self, bufferingPolicy: .bufferingNewest(100_000))
        WorkerThreads.start("gpsd-reader") { [self] in loop(host: host, port: port, silence: silence) }
    }

    /// Wakes the thread and ends it; `events` then finishes.
    func stop() { control.stop() }

    private var isStopped: Bool { control.isStopping }

    private func loop(host: String, port: Int, silence: Double) {
        var backoff = Backoff(base: 1, cap: 30)
        var lastProblem = ""
        let clock = ContinuousClock()
        while !isStopped {
            let connection: GPSDConnection
            do { connection = try GPSDConnection(host: host, port: port) } catch {
                // Said once per outage, not at every retry.
                if error.description != lastProblem { continuation.yield(.problem(error.description)); lastProblem = error.description }
                control.pause(backoff.next())
                continue
            }
            continuation.yield(.notice("gpsd: following \(host):\(port)"))
            lastProblem = ""
            backoff.reset()
            var lastData = clock.now
            // gpsd may send several TPVs for one epoch as a cycle's sentences arrive (GGA, then
            // RMC with the receiver's speed): they are merged, and the epoch goes out once the
            // next one starts or the stream pauses.
            var epoch: Fix?
            func endEpoch() { if let done = epoch { continuation.yield(.fix(done)); epoch = nil } }
            defer { endEpoch() }
            while !isStopped {
                guard connection.waitForData(timeout: 0.5, control: control) else {
                    endEpoch()
                    continuation.yield(.pause)
                    if clock.now - lastData > .seconds(silence) {
                        lastProblem = "gpsd at \(host):\(port) sent nothing for \(Int(silence)) s; reconnecting"
                        continuation.yield(.problem(lastProblem))
                        break
                    }
                    continue
                }
                lastData = clock.now
                do {
                    switch try connection.read() {
                    case .fix(let fix):
                        if let current = epoch, current.time == fix.time { epoch = current.refined(by: fix); continue }
                        endEpoch()
                        epoch = fix
                    case .version(let major, let minor) where major != 3: continuation.yield(.problem("gpsd speaks protocol \(major).\(minor); this agent reads 3.x, so fixes may be missing"))
                    default: break
                    }
                } catch {
                    lastProblem = error.description
                    continuation.yield(.problem(error.description))
                    control.pause(backoff.next())
                    break
                }
            }
        }
        continuation.finish()
    }
}
