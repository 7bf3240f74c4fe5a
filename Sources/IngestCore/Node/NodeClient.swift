import FoundationEssentials

/// The HTTP node: one reused libcurl handle (keep-alive), bearer auth, the extra headers,
/// and nothing sent to any host but the node's origin (redirects are not followed).
public final class NodeClient: NodeTransport {
    public let url: NodeURL
    private let curl: CurlEasy
    private let device: DeviceIdentity
    private let token: Secret
    private let captureKey: Secret?
    private let extraHeaders: [(name: String, value: Secret)]
    private var prefixes: [String: [UInt8]] = [:]

    public var name: String { url.description }
    public var hasCaptureKey: Bool { captureKey != nil }

    public init(url: NodeURL, token: Secret, captureKey: Secret?, caFile: String?,
                headers: [(name: String, value: Secret)], device: DeviceIdentity, timeout: Double = 60) throws(CurlError) {
        var options = CurlEasy.Options(caFile: caFile, userAgent: DeviceIdentity.agent)
        options.timeout = timeout
        self.curl = try CurlEasy(options)
        self.url = url; self.token = token; self.captureKey = captureKey
        self.extraHeaders = headers; self.device = device
    }

    private func headers(_ secret: Secret?) -> [String] {
        var out = extraHeaders.map { h in h.value.withValue { "\(h.name): \($0)" } }
        if let secret { out.append(secret.withValue { "Authorization: Bearer \($0)" }) }
        return out
    }

    /// `GET path`, authenticated with the device token unless `authenticated` is false.
    public func get(_ path: String, authenticated: Bool = true) throws(CurlError) -> HTTPResponse {
        try curl.perform(url: url.url(path), headers: headers(authenticated ? token : nil), body: nil)
    }

    /// `POST path` with a JSON body, device token.
    public func postJSON(_ path: String, _ body: JSONValue) throws(CurlError) -> HTTPResponse {
        try curl.perform(url: url.url(path), headers: headers(token) + ["Content-Type: application/json"], body: body.encoded)
    }

    public func post(endpoint: Endpoint, source: String, items: [OutboxEntry], credential: CredentialKind, trace: TraceID) -> NodeReply {
        if prefixes[source] == nil { prefixes[source] = device.envelopePrefix(source: source) }
        var body = prefixes[source]!
        for (i, item) in items.enumerated() {
            if i > 0 { body.append(UInt8(ascii: ",")) }
            body.append(contentsOf: item.body)
        }
        body.append(contentsOf: "]}".utf8)
        let secret = credential == .captureKey ? (captureKey ?? token) : token
        let response: HTTPResponse
        do {
            response = try curl.perform(url: url.url("/v1/ingest/\(endpoint.rawValue)"),
                                        headers: headers(secret) + ["Content-Type: application/json", trace.newSpanHeader()], body: body)
        } catch {
            if error.isTLSVerification { return .untrusted(message: error.message) }
            if error.isConnectFailure { return .unreachable(message: error.message) }
            return .transient(message: error.message)
        }
        return NodeClient.reply(response, expectedItems: items.count)
    }

    static func reply(_ r: HTTPResponse, expectedItems: Int) -> NodeReply {
        let json = JSONValue.parse(r.body)
        let message = json?["error"]?.stringValue ?? String(decoding: r.body.prefix(200), as: UTF8.self)
        switch r.status {
        case 200, 201:
            guard let accepted = json?["accepted"]?.intValue, let duplicates = json?["duplicates"]?.intValue else {
                return .transient(message: "the node answered 200 without counts")
            }
            return .stored(accepted: Int(accepted), duplicates: Int(duplicates))
        case 400: return .badRequest(message: message, index: json?["index"]?.intValue.map(Int.init))
        case 401: return .unauthorized
        case 403: return .forbidden(message: message)
        case 404: return .notFound
        case 413: return .tooLarge
        case 429, 503: return .busy(retryAfter: r.headers["retry-after"].flatMap(NodeClient.retryAfterSeconds))
        default: return .transient(message: "HTTP \(r.status)")
        }
    }

    /// `Retry-After` is seconds or an HTTP date.
    static func retryAfterSeconds(_ value: String) -> Double? {
        if let s = Double(value.trimmingSpacesAndTabs), s >= 0 { return s }
        if let date = CurlEasy.parseHTTPDate(value) { return max(0, date.timeIntervalSinceNow) }
        return nil
    }
}

extension Error {
    /// The one-line text of any error, preferring our own descriptions.
    public var message: String {
        if let e = self as? CustomStringConvertible { return e.description }
        return "\(self)"
    }
}
