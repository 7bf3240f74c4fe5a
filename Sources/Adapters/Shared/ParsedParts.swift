import Dispatch
import IngestCore

/// The parts of a file's items as a streamed parse (``TrackedFiles/Parse/streamed(_:)``) gives
/// them: the parse runs on a Dispatch thread of its own and blocks while `depth` parts wait, so a
/// large file's parsed pieces are freed as fast as their items are recorded.
final class ParsedParts: Sendable {
    enum Part: Sendable {
        case items(TrackedFiles.FileItems)
        /// How the parse ended; always the last part.
        case end(TrackedFiles.Parse)
    }

    let stream: AsyncStream<Part>
    private let room: DispatchSemaphore
    /// Set when the reader stops (done, or thrown out): the parse then hands over nothing more.
    private let closed = Locked(false)

    init(depth: Int = 2, _ produce: @escaping @Sendable (_ deliver: (TrackedFiles.FileItems) -> Void) -> TrackedFiles.Parse) {
        let (stream, continuation) = AsyncStream.makeStream(of: Part.self)
        let room = DispatchSemaphore(value: depth)
        let closed = closed
        self.stream = stream; self.room = room
        DispatchQueue.global().async {
            let end = produce { items in
                guard !closed.withLock({ $0 }) else { return }
                room.wait()
                continuation.yield(.items(items))
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
