import FoundationEssentials

/// The only thing that talks to the node. It drains the outbox one POST at a time, under a
/// cross-process lock, captures first and then round-robin across lanes, and carries out what
/// `GateAction.decide` makes of each reply (docs/node-api.md's status table).
public actor IngestGate {
    private let store: StateStore
    private let transport: TransportLane
    private let lockPath: String
    /// Set after the node refused the capture key: captures go with the device token from then on.
    private var captureKeyRefused = false
    private var notedEndpoints: Set<Endpoint> = []
    /// The trace this run's (or this `watch` cycle's) requests belong to; logged once it is used.
    private var trace = TraceID.random()
    private var traceLogged = false

    static let retryNotBeforeKey = "retry_not_before"

    public init(store: StateStore, transport: sending any NodeTransport, lockPath: String) {
        self.store = store
        self.transport = TransportLane(transport)
        self.lockPath = lockPath
        self.notedEndpoints = Set((try? store.endpointNotes().keys).map(Array.init) ?? [])
    }

    public var nodeName: String { transport.name }

    /// Starts a new trace: `watch` calls it at each cycle, so each cycle is one trace at the node.
    public func startTrace() {
        trace = TraceID.random()
        traceLogged = false
    }

    /// Sends what is queued until the outbox is empty, the node stops us, or the wait budget runs out.
    public func drain(_ policy: DrainPolicy) async -> DrainReport {
        var report = DrainReport()
        if let until = retryNotBefore(), until > Date() {
            report.stop = .deferredUntil(until)
            Log.info("the node asked us to wait until \(until.rfc3339); \(transport.name) not contacted")
            return report
        }
        var session = Session(policy: policy)
        // A capture queued by another process while we held the lock finds the lock taken and
        // leaves it to us, so look again after letting go.
        for _ in 0..<3 {
            guard let lock = await FileLock.acquire(lockPath, wait: policy.lockWait) else {
                report.lockedElsewhere = true
                Log.info("another hearthloom-ingest is draining; it sends what is queued")
                break
            }
            await drainLocked(&session, &report)
            lock.release()
            guard report.stop == nil, report.parked[.capture] == nil, (try? store.hasQueued(.capture)) == true else { break }
        }
        session.progress.finish()
        return report
    }

    // MARK: - The drain loop

    private struct Session {
        var policy: DrainPolicy
        var waited = 0.0
        var backoff = Backoff()
        var connectFailures = 0
        var exhausted: Set<Lane> = []
        var sent = 0
        var total: Int?
        let progress = ProgressLine("sending")
        init(policy: DrainPolicy) { self.policy = policy }
    }

    private enum LaneOutcome { case more, empty, parked, stopAll }

    private func drainLocked(_ session: inout Session, _ report: inout DrainReport) async {
        session.exhausted = []
        // Counting the whole outbox costs a scan; only a terminal's progress line needs the total.
        if Terminal.stderrIsTerminal { session.total = (try? store.outboxDepth().values.reduce(0, +)).map { $0 + session.sent } }
        var lanes: [Lane] = []
        while true {
            // Captures first: a person's note should not wait behind a photo library's resync.
            if report.parked[.capture] == nil, (try? store.hasQueued(.capture)) == true,
               let capture = try? store.lanes().first(where: { $0.endpoint == .capture && !session.exhausted.contains($0) }) {
                if await step(capture, &session, &report) == .stopAll { return }
                continue
            }
            if session.policy.onlyCaptures { return }
            lanes.removeAll { session.exhausted.contains($0) || report.parked[$0.endpoint] != nil }
            if lanes.isEmpty {
                do { lanes = try store.lanes().filter { $0.endpoint != .capture && !session.exhausted.contains($0) && report.parked[$0.endpoint] == nil } }
                catch { report.stop = .storeFailed(error.description); return }
                if lanes.isEmpty { return }
            }
            // One batch per lane per round, so one adapter's full resync cannot starve another.
            for lane in lanes where report.parked[lane.endpoint] == nil {
                if await step(lane, &session, &report) == .stopAll { return }
            }
        }
    }

    /// Sends the next batch of `lane`, splitting it as the node's replies require.
    private func step(_ lane: Lane, _ session: inout Session, _ report: inout DrainReport) async -> LaneOutcome {
        let batch: [OutboxEntry]
        do { batch = try store.nextBatch(lane, after: 0, maxItems: session.policy.maxItems, maxBytes: session.policy.maxItemBytes) }
        catch { report.stop = .storeFailed(error.description); return .stopAll }
        if batch.isEmpty { session.exhausted.insert(lane); return .empty }

        var pending: [ArraySlice<OutboxEntry>] = [batch[...]]
        while let part = pending.popLast() {
            let credential: CredentialKind = lane.endpoint == .capture && transport.hasCaptureKey && !captureKeyRefused ? .captureKey : .deviceToken
            if !traceLogged { traceLogged = true; Log.debug("trace \(trace): the requests to \(transport.name) carry it in traceparent") }
            let reply = await transport.post(endpoint: lane.endpoint, source: lane.source, items: Array(part), credential: credential, trace: trace)
            let facts = DrainFacts(waited: session.waited, maxWait: session.policy.maxWait,
                                   connectFailures: session.connectFailures, backoff: session.backoff.draw())
            let action = GateAction.decide(reply, batchSize: part.count, endpoint: lane.endpoint, credential: credential, facts: facts)
            if let outcome = await carryOut(action, part, lane, &pending, &session, &report) { return outcome }
        }
        return .more
    }

    /// Does what `action` says with `part`; returns how the lane ends, or nil to go on with `pending`.
    private func carryOut(_ action: GateAction, _ part: ArraySlice<OutboxEntry>, _ lane: Lane, _ pending: inout [ArraySlice<OutboxEntry>],
                          _ session: inout Session, _ report: inout DrainReport) async -> LaneOutcome? {
        switch action {
        case .deliver(let accepted, let duplicates):
            do { try store.delivered(part) } catch { report.stop = .storeFailed(error.description); return .stopAll }
            if accepted + duplicates != part.count {
                Log.warning("\(transport.name) counted \(accepted + duplicates) of \(part.count) items for \(lane); treating the batch as stored")
            }
            report.accepted += accepted; report.duplicates += duplicates
            report.delivered[lane.endpoint, default: 0] += part.count
            session.sent += part.count
            session.progress.update(session.sent, of: session.total)
            session.backoff.reset(); session.connectFailures = 0
            if notedEndpoints.remove(lane.endpoint) != nil { try? store.setEndpointNote(lane.endpoint, nil) }

        case .split(let parts):
            // `pending` is a stack: push the last part first.
            pending.append(contentsOf: parts.reversed().map { part[(part.startIndex + $0.lowerBound)..<(part.startIndex + $0.upperBound)] })

        case .deadLetter(let cause):
            do { try store.deadLetter(part, error: cause.error) } catch { report.stop = .storeFailed(error.description); return .stopAll }
            report.deadLettered += 1
            let key = part.first!.key.prefix(80)
            switch cause {
            case .refused(let message): Log.warning("\(lane): the node refused item \(key): \(message); kept in dead letters")
            case .tooLarge: Log.warning("\(lane): item \(key) is larger than the node accepts; kept in dead letters")
            }

        case .resendWithDeviceToken:
            captureKeyRefused = true
            Log.warning("the node refused the capture key; sending captures with the device token")
            pending.append(part)

        case .retry(let wait, let cause):
            if cause.usedBackoff { session.backoff.advance() }
            switch cause {
            case .busy, .busyAsAsked: Log.info("\(transport.name) is busy; retrying \(lane) in \(String(format1: wait)) s")
            case .failed(let message): Log.info("\(lane): \(message); retrying in \(String(format1: wait)) s")
            case .unreachable(let message):
                session.connectFailures += 1
                Log.info("\(lane): \(message); retrying in \(String(format1: wait)) s")
            }
            await pause(wait, &session)
            pending.append(part)

        case .park(let reason):
            park(lane.endpoint, reason, &report)
            return .parked

        case .stop(let cause):
            stop(cause, &report)
            return .stopAll
        }
        return nil
    }

    private func stop(_ cause: GateAction.StopCause, _ report: inout DrainReport) {
        switch cause {
        case .unauthorized:
            report.stop = .unauthorized
            Log.error("\(transport.name) refused the device token (401); everything stays queued. Pair again: `hearthloom-ingest pair` and paste a fresh link")
        case .busy(let retryAfter):
            let until = Date().addingTimeInterval(retryAfter)
            try? store.setMeta(IngestGate.retryNotBeforeKey, String(until.timeIntervalSince1970))
            report.stop = .busyUntil(until)
            Log.warning("\(transport.name) is busy and asked for \(Int(retryAfter)) s; items stay queued until \(until.rfc3339)")
        case .stayedBusy:
            report.stop = .unreachable("the node stayed busy")
        case .unreachable(let message):
            report.stop = .unreachable(message)
            Log.warning("\(transport.name) is unreachable (\(message)); everything stays queued")
        case .untrusted(let message):
            report.stop = .untrusted(message)
            Log.error("\(transport.name): \(message); check the node's certificate or CAFile= in node.conf")
        }
    }

    private func park(_ endpoint: Endpoint, _ reason: String, _ report: inout DrainReport) {
        report.parked[endpoint] = reason
        Log.warning(reason)
        try? store.setEndpointNote(endpoint, reason)
        notedEndpoints.insert(endpoint)
    }

    private func pause(_ seconds: Double, _ session: inout Session) async {
        session.waited += seconds
        try? await Task.sleep(for: .milliseconds(Int(seconds * 1000)))
    }

    private func retryNotBefore() -> Date? {
        guard let text = try? store.meta(IngestGate.retryNotBeforeKey), let t = Double(text) else { return nil }
        if t <= Date().timeIntervalSince1970 { try? store.setMeta(IngestGate.retryNotBeforeKey, nil); return nil }
        return Date(timeIntervalSince1970: t)
    }
}

extension String {
    /// One decimal, for log lines about waits.
    init(format1 value: Double) { self = String(Double(Int(value * 10)) / 10) }
}
