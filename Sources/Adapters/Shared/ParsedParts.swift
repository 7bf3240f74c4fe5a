import Dispatch
import IngestCore

/// What a blocking parse hands to an async reader, part by part, ending with how it ended: a
/// file's items as a streamed parse gives them (``TrackedFiles/Parse/streamed(_:)``), a health
/// export's chunks of samples. The parse runs on a worker thread (``WorkerThreads``) and blocks
/// while `depth` parts wait, so a large file's parsed pieces are freed as fast as they are taken.
final class ParsedParts<Part: Sendable, End: Sendable>: Sendable {
    enum Next: Sendable {
        case part(Part)
        /// How the parse ended; always the last.
        case end(End)
    }

    let stream: AsyncStream<Next>
    private let room: DispatchSemaphore
    /// Set when the reader stops (done, or thrown out): the parse then hands over nothing more.
    private let closed = Locked(false)

    init(_ label: String, depth: Int = 2, _ produce: @escaping @Sendable (_ deliver: (Part) -> Void) -> End) {
        let (stream, continuation) = AsyncStream.makeStream(of: Next.self)
        let room = DispatchSemaphore(value: depth)
        let closed = closed
        self.stream = stream; self.room = room
        WorkerThreads.start(label) {
            let end = produce { part in
                guard !closed.withLock({ $0 }) else { return }
                room.wait()
                continuation.yield(.part(part))
            }
            continuation.yield(.end(end))
            continuation.finish()
        }
    }

    /// The reader took a part: the parse may hand over one more.
    func taken() { room.signal() }

    /// The reader stops; a parse waiting for room goes on, handing over nothing more.
    func close() {
        closed.withLock { $0 = true }
        room.signal()
    }
}
