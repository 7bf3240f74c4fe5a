import FoundationEssentials

/// What a node said to one batch, per the status table of docs/node-api.md.
public enum NodeReply: Sendable, Equatable {
    case stored(accepted: Int, duplicates: Int)             // 200
    case badRequest(message: String, index: Int?)           // 400
    case unauthorized                                       // 401
    case forbidden(message: String)                         // 403
    case notFound                                           // 404
    case tooLarge                                           // 413
    case busy(retryAfter: Double?)                          // 429, 503
    case transient(message: String)                         // other 5xx, timeouts, resets
    case unreachable(message: String)                       // no connection at all (DNS, refused)
    case untrusted(message: String)                         // TLS verification failed: never retried
}

/// Which secret a batch is sent with.
public enum CredentialKind: Sendable, Equatable { case deviceToken, captureKey }

/// The one POST helper: an HTTP node (`NodeClient`) or the embedded local node (`LocalNode`).
/// Used only by `IngestGate`, one call at a time.
public protocol NodeTransport: AnyObject {
    /// A human name for logs and status: the URL, or "embedded local node".
    var name: String { get }
    /// Whether captures can be sent with a separate capture key.
    var hasCaptureKey: Bool { get }
    /// Sends one batch; an HTTP node puts a new span of `trace` in its `traceparent` header.
    func post(endpoint: Endpoint, source: String, items: [OutboxEntry], credential: CredentialKind, trace: TraceID) -> NodeReply
}

/// `actor` and `device` of every request body.
public struct DeviceIdentity: Sendable {
    public var id: String
    public var name: String
    public static let agent = "hearthloom-ingest/\(AgentVersion.string)"

    public var actor: String { "device:\(id)" }

    /// The batch body up to the items array, for `source`.
    func envelopePrefix(source: String) -> [UInt8] {
        var out: [UInt8] = Array("{\"actor\":".utf8)
        JSONValue.encodeString(actor, into: &out)
        out.append(contentsOf: ",\"device\":".utf8)
        JSONValue.object(["id": .string(id), "name": .string(name), "platform": "linux", "agent": .string(DeviceIdentity.agent)]).encode(into: &out)
        out.append(contentsOf: ",\"source\":".utf8)
        JSONValue.encodeString(source, into: &out)
        out.append(contentsOf: ",\"items\":[".utf8)
        return out
    }
}

public enum AgentVersion {
    public static let string = "0.2.0"
}
