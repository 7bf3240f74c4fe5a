import FoundationEssentials
import IngestCore
#if canImport(Glibc)
import Glibc
#endif

/// Follows geoclue on the system bus from a worker thread of its own, blocked in `poll` between
/// messages; what it reads comes out of `events`, in order.
///
/// It asks for a client, configures and starts it, and turns each `LocationUpdated` into a fix.
/// When geoclue exits (it is D-Bus-activated and quits when idle) or restarts, it asks again at
/// once, and then with backoff (1 s doubling to 30 s) until geoclue answers. A `GetClient` that
/// geoclue holds back (no location agent for the user) is waited for, with one warning line.
final class GeoClueReader: Sendable {
    let events: AsyncStream<FixSourceEvent>
    private let continuation: AsyncStream<FixSourceEvent>.Continuation
    private let control = LoopControl()

    /// How long geoclue may hold back our client before the adapter says an agent is missing.
    static let agentWait = 10.0

    init(request: GeoClueRequest) {
        (events, continuation) = AsyncStream.makeStream(of: FixSourceEvent.self, bufferingPolicy: .bufferingNewest(100_000))
        WorkerThreads.start("geoclue-reader") { [self] in run(request) }
    }

    /// Ends the thread at once; `events` then finishes.
    func stop() { control.stop() }

    private func run(_ request: GeoClueRequest) {
        var backoff = Backoff(base: 1, cap: 30)
        var said = ProblemLine(continuation)
        while !control.isStopping {
            do throws(BusError) {
                let bus = try BusConnection(.system)
                for rule in BusConnection.geoclueMatchRules { try bus.addMatch(rule) }
                backoff.reset()
                var client = GeoClueClient(bus: bus, request: request, control: control, said: said)
                defer { said = client.said }
                try client.follow()
            } catch {
                said.say("the system bus: \(error); following geoclue again when it returns")
            }
            guard !control.isStopping else { break }
            control.wait(timeout: backoff.next())
        }
        continuation.finish()
    }
}

/// Problems said once per outage: the same line again is not repeated until things work again.
struct ProblemLine {
    let continuation: AsyncStream<FixSourceEvent>.Continuation
    private var last: String?

    init(_ continuation: AsyncStream<FixSourceEvent>.Continuation) { self.continuation = continuation }

    mutating func say(_ line: String) {
        guard line != last else { return }
        last = line
        continuation.yield(.problem(line))
    }

    mutating func recovered(_ notice: String) {
        last = nil
        continuation.yield(.notice(notice))
    }
}

/// Our client at geoclue over one bus connection: asked for, started, followed, asked for again.
private struct GeoClueClient {
    private enum Phase {
        case waiting(until: ContinuousClock.Instant)
        case asking(cookie: UInt64, since: ContinuousClock.Instant)
        case starting(path: String, cookie: UInt64)
        case following(path: String)
    }

    let bus: BusConnection
    let request: GeoClueRequest
    let control: LoopControl
    var said: ProblemLine
    private var phase = Phase.waiting(until: .now)
    private var backoff = Backoff(base: 1, cap: 30)
    private var missedSaid = false
    /// When the last fix went out, until a pause has followed it.
    private var lastFix: ContinuousClock.Instant?

    init(bus: BusConnection, request: GeoClueRequest, control: LoopControl, said: ProblemLine) {
        self.bus = bus; self.request = request; self.control = control; self.said = said
    }

    /// Runs until stopped. - Throws: a `BusError` when the bus connection is gone.
    mutating func follow() throws(BusError) {
        while !control.isStopping {
            var deadline: ContinuousClock.Instant?
            switch phase {
            case .waiting(let until) where until <= .now:
                phase = .asking(cookie: try bus.requestClient(), since: .now)
                continue
            case .waiting(let until):
                deadline = until
            case .asking(_, let since) where since + .seconds(GeoClueReader.agentWait) <= .now:
                said.say("geoclue has held back our client for \(Int(GeoClueReader.agentWait)) s: \(GeoClueRefusal.agentMissing); still waiting")
            case .asking(_, let since):
                deadline = since + .seconds(GeoClueReader.agentWait)
            default:
                break
            }
            while let message = try bus.nextMessage() { try handle(message) }
            // Fixes came: a second without more is a pause, when the adapter stores what it holds.
            if let fix = lastFix {
                if fix + .seconds(1) <= .now { said.continuation.yield(.pause); lastFix = nil; continue }
                deadline = min(deadline ?? fix + .seconds(1), fix + .seconds(1))
            }
            control.wait(on: [bus], until: deadline)
        }
    }

    private mutating func handle(_ message: BusMessage) throws(BusError) {
        switch (message, phase) {
        case (.reply(let cookie, let result), .asking(let asked, _)) where cookie == asked:
            do throws(BusError) {
                guard case .string(let path)? = try result.get().first else { throw BusError(function: "GetClient", code: -EIO, message: "no client path") }
                phase = .starting(path: path, cookie: try bus.startClient(path, request))
            } catch where !error.isDisconnect {
                failed(error)
            }
        case (.reply(let cookie, let result), .starting(let path, let started)) where cookie == started:
            switch result {
            case .success:
                phase = .following(path: path)
                backoff.reset()
                missedSaid = false
                said.recovered("geoclue: following locations (\(path))")
            case .failure(let error):
                failed(error)
            }
        case (.signal(let signal), _) where signal.member == "NameOwnerChanged":
            guard signal.arguments.count == 3, signal.arguments[0].text == BusConnection.geoclue else { return }
            let appeared = signal.arguments[2].text?.isEmpty == false
            if case .following = phase, !appeared { said.say("geoclue went away; following it again when it returns") }
            // Gone: ask again at once (that starts a D-Bus-activated geoclue). Back: ask now.
            if !appeared || isWaiting { phase = .waiting(until: .now) }
        case (.signal(let signal), .following(let path)) where signal.member == "LocationUpdated" && signal.path == path:
            guard signal.arguments.count == 2, let location = signal.arguments[1].text else { return }
            do throws(BusError) {
                if let fix = try bus.location(at: location) { said.continuation.yield(.fix(fix)); lastFix = .now }
            } catch where !error.isDisconnect {
                // Read too late: geoclue had freed it. Said once per client.
                if !missedSaid { said.say("geoclue: could not read a location before geoclue freed it (\(error)); this agent falls behind") }
                missedSaid = true
            }
        default:
            break
        }
    }

    private var isWaiting: Bool { if case .waiting = phase { true } else { false } }

    private mutating func failed(_ error: BusError) {
        said.say(GeoClueRefusal(error).line)
        phase = .waiting(until: .now + .seconds(backoff.next()))
    }
}
