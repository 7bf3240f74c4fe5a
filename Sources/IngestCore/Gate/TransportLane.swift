/// A node transport whose blocking POSTs (libcurl, up to its 60 s timeout; the embedded node's
/// fsync) run one at a time on a worker lane (``WorkerThreads/Lane``), so a slow node holds that
/// lane and never a thread that the gate's actor and every other task share.
final class TransportLane: Sendable {
    let name: String
    let hasCaptureKey: Bool
    private let lane = WorkerThreads.Lane("transport")
    // Only ever used on `lane`; the lock lets the compiler check that.
    private let transport: Locked<any NodeTransport>

    init(_ transport: sending any NodeTransport) {
        name = transport.name
        hasCaptureKey = transport.hasCaptureKey
        self.transport = Locked(transport)
    }

    func post(endpoint: Endpoint, source: String, items: [OutboxEntry], credential: CredentialKind, trace: TraceID) async -> NodeReply {
        let transport = self.transport
        // The lane lets go of the batch and the node before this resumes (`Lane.run`): the caller
        // stays their last owner, so they close (and checkpoint their WAL) before the process
        // exits, not on the lane while it exits.
        return await lane.run {
            transport.withLock { $0.post(endpoint: endpoint, source: source, items: items, credential: credential, trace: trace) }
        }
    }
}
