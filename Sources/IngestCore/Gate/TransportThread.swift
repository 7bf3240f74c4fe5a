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

    /// Stores each endpoint's entries at the embedded local node, one transaction each, then runs
    /// `commit` on the same thread: the anchor moves only once the node's writes are durable, and
    /// both fsyncs hold this thread rather than one the scan's reads share. Nil, with `commit` not
    /// run, for any other node or when the node did not store a batch.
    func storeLocally(_ batches: [Endpoint: [OutboxEntry]], source: String,
                      then commit: @escaping @Sendable () throws(StoreError) -> Void) async throws(StoreError) -> DrainReport? {
        try await onThread { (transport) -> Result<DrainReport?, StoreError> in
            guard let node = transport as? LocalNode else { return .success(nil) }
            var report = DrainReport()
            for (endpoint, entries) in batches {
                guard case .stored(let accepted, let duplicates) = node.store(endpoint: endpoint, source: source, items: entries)
                else { return .success(nil) }
                report.accepted += accepted; report.duplicates += duplicates
                report.delivered[endpoint, default: 0] += entries.count
            }
            do throws(StoreError) { try commit() } catch { return .failure(error) }
            return .success(report)
        }.get()
    }

    private func onThread<R: Sendable>(_ body: @escaping @Sendable (any NodeTransport) -> R) async -> R {
        let result = await withCheckedContinuation { continuation in
            queue.async { continuation.resume(returning: self.transport.withLock { body($0) }) }
        }
        // Once an empty block has run after it, the block above has let go of what it held (the
        // node, a store): the caller stays their last owner, so they close (and checkpoint their
        // WAL) before the process exits, not on this thread while it exits.
        await withCheckedContinuation { continuation in queue.async { continuation.resume() } }
        return result
    }
}
