import Dispatch
import Synchronization

/// A node transport whose blocking POSTs (libcurl, up to its 60 s timeout) run on a thread of
/// their own, so a slow node holds that thread and never one of the few the gate's actor and
/// every other task share.
final class TransportThread: Sendable {
    let name: String
    let hasCaptureKey: Bool
    /// Whether the node is the embedded local node, which can take a scan's items directly.
    let isLocal: Bool
    private let queue = DispatchQueue(label: "hearthloom.transport")
    // Only ever used on `queue`; the lock lets the compiler check that.
    private let transport: Locked<any NodeTransport>

    init(_ transport: sending any NodeTransport) {
        name = transport.name
        hasCaptureKey = transport.hasCaptureKey
        isLocal = transport is LocalNode
        self.transport = Locked(transport)
    }

    func post(endpoint: Endpoint, source: String, items: [OutboxEntry], credential: CredentialKind, trace: TraceID) async -> NodeReply {
        await onThread { $0.post(endpoint: endpoint, source: source, items: items, credential: credential, trace: trace) }
    }

    /// Stores `items` at the embedded local node in one transaction; nil for any other node.
    func storeLocally(endpoint: Endpoint, source: String, items: [OutboxEntry]) async -> NodeReply? {
        await onThread { ($0 as? LocalNode)?.store(endpoint: endpoint, source: source, items: items) }
    }

    private func onThread<R: Sendable>(_ body: @escaping @Sendable (any NodeTransport) -> R) async -> R {
        await withCheckedContinuation { continuation in
            queue.async { continuation.resume(returning: self.transport.withLock { body($0) }) }
        }
    }
}
