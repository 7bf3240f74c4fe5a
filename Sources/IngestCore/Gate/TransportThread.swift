import Dispatch
import Synchronization

/// A node transport whose blocking POSTs (libcurl, up to its 60 s timeout) run on a thread of
/// their own, so a slow node holds that thread and never one of the few the gate's actor and
/// every other task share.
final class TransportThread: Sendable {
    let name: String
    let hasCaptureKey: Bool
    private let queue = DispatchQueue(label: "hearthloom.transport")
    // Only ever used on `queue`; the lock lets the compiler check that.
    private let transport: Locked<any NodeTransport>

    init(_ transport: sending any NodeTransport) {
        name = transport.name
        hasCaptureKey = transport.hasCaptureKey
        self.transport = Locked(transport)
    }

    func post(endpoint: Endpoint, source: String, items: [OutboxEntry], credential: CredentialKind, trace: TraceID) async -> NodeReply {
        await withCheckedContinuation { continuation in
            queue.async {
                let reply = self.transport.withLock { $0.post(endpoint: endpoint, source: source, items: items, credential: credential, trace: trace) }
                continuation.resume(returning: reply)
            }
        }
    }
}
