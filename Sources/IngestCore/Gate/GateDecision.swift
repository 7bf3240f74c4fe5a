/// What the gate does with one batch once the node has replied: docs/node-api.md's status table
/// as a value. `IngestGate` carries it out (store, logs, waits).
enum GateAction: Sendable, Equatable {
    /// 200: drop the batch from the outbox; the node's counts go to the report.
    case deliver(accepted: Int, duplicates: Int)
    /// Send these parts of the batch instead (offsets into it), in this order.
    case split([Range<Int>])
    /// Move the batch's one item to the dead letters.
    case deadLetter(DeadLetterCause)
    /// The node refused the capture key: send again, and every later capture, with the device token.
    case resendWithDeviceToken
    /// Wait this many seconds, then send the same batch again.
    case retry(after: Double, RetryCause)
    /// Keep this endpoint's items queued for the rest of the drain, for this reason; others flow.
    case park(reason: String)
    /// End the drain; everything not yet delivered stays queued.
    case stop(StopCause)

    enum DeadLetterCause: Sendable, Equatable {
        /// 400 on the item alone, with the node's message.
        case refused(String)
        /// 413 on the item alone.
        case tooLarge

        /// What the dead-letter store keeps as the item's error.
        var error: String {
            switch self {
            case .refused(let message): message
            case .tooLarge: "larger than the node accepts (413)"
            }
        }
    }

    enum RetryCause: Sendable, Equatable {
        /// 429/503 with `Retry-After`: the node named the wait.
        case busyAsAsked
        /// 429/503 without `Retry-After`: the wait is the backoff's.
        case busy
        /// Other 5xx, a timeout or a reset.
        case failed(String)
        /// No connection at all; each one counts toward the three that end the drain.
        case unreachable(String)

        /// Whether the wait came from the backoff, which then grows for the next failure.
        var usedBackoff: Bool { self != .busyAsAsked }
    }

    enum StopCause: Sendable, Equatable {
        /// 401 on the device token: pair again.
        case unauthorized
        /// The node asked for a pause (seconds) longer than the wait budget has left.
        case busy(retryAfter: Double)
        /// Busy without `Retry-After` until the wait budget ran out.
        case stayedBusy
        /// Failures until the wait budget ran out, or three failed connections.
        case unreachable(String)
        /// TLS verification failed: never retried.
        case untrusted(String)
    }
}

/// The drain so far, as far as a decision needs it; passed in so `decide` reads no clock and
/// draws no random number.
struct DrainFacts: Sendable, Equatable {
    /// Seconds this drain has already waited on a busy or failing node.
    var waited: Double
    /// `DrainPolicy.maxWait`.
    var maxWait: Double
    /// Failed connections since the last delivery, not counting this reply.
    var connectFailures: Int
    /// The wait a failure gets now (`Backoff.draw()`).
    var backoff: Double
}

extension GateAction {
    /// Decides what to do after `reply` to a batch of `batchSize` items for `endpoint`, sent with `credential`.
    static func decide(_ reply: NodeReply, batchSize: Int, endpoint: Endpoint, credential: CredentialKind, facts: DrainFacts) -> GateAction {
        switch reply {
        case .stored(let accepted, let duplicates):
            return .deliver(accepted: accepted, duplicates: duplicates)

        case .badRequest(let message, let index):
            if batchSize == 1 { return .deadLetter(.refused(message)) }
            guard let index, index >= 0, index < batchSize else { return .split(halves(batchSize)) }
            // Deliver what came before, then isolate the named item, then the rest.
            return .split([0..<index, index..<index + 1, index + 1..<batchSize].filter { !$0.isEmpty })

        case .tooLarge:
            return batchSize == 1 ? .deadLetter(.tooLarge) : .split(halves(batchSize))

        case .unauthorized where credential == .captureKey, .forbidden where credential == .captureKey:
            return .resendWithDeviceToken

        case .unauthorized:
            return .stop(.unauthorized)

        case .forbidden(let message):
            return .park(reason: "the token may not send \(endpoint.rawValue) (403: \(message))")

        case .notFound:
            return .park(reason: "node too old for \(endpoint.rawValue) (404); its items stay queued")

        case .busy(let retryAfter):
            let wait = max(retryAfter ?? facts.backoff, 0.05)
            if facts.waited + wait > facts.maxWait { return .stop(retryAfter.map { .busy(retryAfter: $0) } ?? .stayedBusy) }
            return .retry(after: wait, retryAfter == nil ? .busy : .busyAsAsked)

        case .transient(let message):
            if facts.waited + facts.backoff > facts.maxWait { return .stop(.unreachable(message)) }
            return .retry(after: facts.backoff, .failed(message))

        case .unreachable(let message):
            // With no connection at all, three tries tell enough: the node is down.
            if facts.connectFailures + 1 >= 3 || facts.waited + facts.backoff > facts.maxWait { return .stop(.unreachable(message)) }
            return .retry(after: facts.backoff, .unreachable(message))

        case .untrusted(let message):
            return .stop(.untrusted(message))
        }
    }

    private static func halves(_ count: Int) -> [Range<Int>] { [0..<count / 2, count / 2..<count] }
}
