import FoundationEssentials

/// `hearthloom://pair?url=<percent-encoded base URL>&pat=<token>`, as a node's dashboard shows it.
public struct PairingLink: Sendable {
    public var url: String
    public var token: Secret

    /// - Throws: `AgentError` with exit code 2 for anything that is not such a link.
    public init(_ text: String) throws(AgentError) {
        let malformed = { (why: String) in AgentError(.usage, "not a pairing link (\(why)); expected hearthloom://pair?url=…&pat=…") }
        guard let c = URLComponents(string: text.trimmingSpacesAndTabs) else { throw malformed("unparseable") }
        guard c.scheme?.lowercased() == "hearthloom" else { throw malformed("the scheme must be hearthloom:") }
        guard c.host == "pair" || c.path == "pair" || c.path == "//pair" else { throw malformed("it must be hearthloom://pair") }
        let items = c.queryItems ?? []
        guard let url = items.first(where: { $0.name == "url" })?.value, !url.isEmpty else { throw malformed("no url=") }
        guard let pat = items.first(where: { $0.name == "pat" })?.value, !pat.isEmpty else { throw malformed("no pat=") }
        self.url = url
        self.token = Secret(pat)
    }
}

/// Checks a node and a token, then keeps them: `pair`.
public enum Pairing {
    public struct Result: Sendable {
        public var url: NodeURL
        public var keyName: String?
        public var scopes: [String]
        public var captureKeyMinted: Bool
        public var nodeVersion: String?
    }

    /// Verifies `/v1/health` and `/v1/whoami`, mints a capture key where the node allows, and
    /// only then writes `node.conf`, the token and the capture key (files, 0600, or the keyring
    /// with `TokenStore=keyring`).
    /// A refused pairing keeps nothing.
    public static func pair(urlText: String, token: Secret, paths: Paths) throws(AgentError) -> Result {
        let url: NodeURL
        do { url = try NodeURL(urlText) } catch { throw AgentError(.config, error.message) }
        let existing: NodeConfig
        do { existing = try NodeConfig.load(paths) } catch { throw .config(error) }

        let client: NodeClient
        do {
            client = try NodeClient(url: url, token: token, captureKey: nil, caFile: existing.caFile, headers: existing.headers,
                                    device: DeviceIdentity.current(store: nil), timeout: 20)
        } catch { throw AgentError(.node, error.message) }

        let verified: Verified
        do { verified = try verify(client, url: url) } catch { throw AgentError(.node, error.message) }

        var captureKey: Secret?
        let name = "\(DeviceIdentity.hostName()) capture"
        if let minted = try? client.postJSON("/v1/keys", ["name": .string(name), "grants": ["capture": true, "own_device": true]]) {
            if minted.status == 201 || minted.status == 200, let k = JSONValue.parse(minted.body)?["key"]?.stringValue, !k.isEmpty {
                captureKey = Secret(k)
            } else if minted.status == 403 {
                Log.notice("the node does not let this token mint keys; captures will use the device token")
            } else {
                Log.warning("minting a capture key failed (HTTP \(minted.status)); captures will use the device token")
            }
        }

        try keep(url: url, token: token, captureKey: captureKey, existing: existing, paths: paths)
        return Result(url: url, keyName: verified.keyName, scopes: verified.scopes, captureKeyMinted: captureKey != nil,
                      nodeVersion: verified.nodeVersion)
    }

    /// What `GET /v1/health` and `GET /v1/whoami` said of a node and a token.
    public struct Verified: Sendable {
        public var keyName: String?
        public var scopes: [String]
        public var nodeVersion: String?
    }

    /// Why `verify` refused a node or a token. `message` is the line a user sees.
    public enum VerifyError: Error, Sendable, CustomStringConvertible {
        /// `/v1/health` could not be fetched at all.
        case unreachable(NodeURL, CurlError)
        /// `/v1/health` answered, but not as a Hearthloom node does.
        case notANode(NodeURL, status: Int)
        /// `/v1/whoami` could not be fetched.
        case whoamiUnreachable(NodeURL, CurlError)
        /// `/v1/whoami` answered 401: the node does not know the token.
        case refusedToken(NodeURL)
        /// `/v1/whoami` answered something other than 200 or 401.
        case whoamiStatus(NodeURL, status: Int)
        /// The token is known but may not ingest.
        case lacksIngestScope(NodeURL, scopes: [String])

        public var message: String {
            switch self {
            case .unreachable(let url, let error): "\(url): the node does not answer: \(error.message)"
            case .notANode(let url, let status): "\(url)/v1/health answered HTTP \(status); is this a Hearthloom node?"
            case .whoamiUnreachable(let url, let error): "\(url): \(error.message)"
            case .refusedToken(let url): "\(url) refused the token (401); copy a fresh pairing link from the node's dashboard"
            case .whoamiStatus(let url, let status): "\(url)/v1/whoami answered HTTP \(status)"
            case .lacksIngestScope(let url, let scopes):
                "\(url): this token lacks the ingest scope (it has \(scopes.joined(separator: ", "))); make one that may ingest"
            }
        }
        public var description: String { message }
    }

    /// Checks that `url` is a Hearthloom node that answers and that `client`'s token may ingest.
    /// - Throws: `VerifyError` naming what failed; its `message` says how to fix it.
    public static func verify(_ client: NodeClient, url: NodeURL) throws(VerifyError) -> Verified {
        let health: HTTPResponse
        do { health = try client.get("/v1/health", authenticated: false) } catch { throw .unreachable(url, error) }
        let healthJSON = JSONValue.parse(health.body)
        guard health.status == 200, healthJSON?["status"]?.stringValue == "ok" else { throw .notANode(url, status: health.status) }
        let whoami: HTTPResponse
        do { whoami = try client.get("/v1/whoami") } catch { throw .whoamiUnreachable(url, error) }
        guard whoami.status == 200 else {
            throw whoami.status == 401 ? .refusedToken(url) : .whoamiStatus(url, status: whoami.status)
        }
        let key = JSONValue.parse(whoami.body)?["key"]
        let scopes = key?["scopes"]?.arrayValue?.compactMap(\.stringValue) ?? []
        guard scopes.contains("ingest") else { throw .lacksIngestScope(url, scopes: scopes) }
        return Verified(keyName: key?["name"]?.stringValue, scopes: scopes, nodeVersion: healthJSON?["version"]?.stringValue)
    }

    private static func keep(url: NodeURL, token: Secret, captureKey: Secret?, existing: NodeConfig, paths: Paths) throws(AgentError) {
        if existing.usesKeyring {
            // The keyring first: a locked one (exit 4) leaves node.conf as it was.
            try Keyring.store(token, node: url, .token)
            if let captureKey { try Keyring.store(captureKey, node: url, .captureKey) } else { try Keyring.clear(node: url, .captureKey) }
        }
        do {
            try FileSystem.ensureDirectory(paths.configDir)
            if !existing.usesKeyring {
                try token.withValue { t in try FileSystem.writeAtomically(existing.tokenFile, Array((t + "\n").utf8), mode: 0o600) }
                if let captureKey {
                    try captureKey.withValue { k in try FileSystem.writeAtomically(existing.captureKeyFile, Array((k + "\n").utf8), mode: 0o600) }
                } else {
                    FileSystem.remove(existing.captureKeyFile)   // a key from an earlier pairing belongs to that pairing
                }
            }
            try FileSystem.writeAtomically(paths.nodeConf, Array(nodeConf(url: url, existing: existing.file).utf8), mode: 0o600)
        } catch { throw AgentError(.config, error.message) }

        // Items already delivered elsewhere (the embedded node, or another node) must reach this
        // one too: forget every anchor so the next run sends everything.
        if existing.url != url {
            do {
                let store = try StateStore(paths: paths)
                try store.resetAllAnchors()
                try store.setMeta(IngestGate.retryNotBeforeKey, nil)
                try store.clearEndpointNotes()
            } catch { throw .store(error) }
        }
    }

    /// node.conf with `URL=` replaced, every other line (CAFile=, Header=, comments) kept.
    static func nodeConf(url: NodeURL, existing file: String) -> String {
        let old = (try? FileSystem.readText(file)) ?? ""
        var lines = old.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        while lines.last == "" { lines.removeLast() }
        let urlLine = "URL=\(url)"
        if let i = lines.firstIndex(where: { $0.trimmingSpacesAndTabs.hasPrefix("URL=") || $0.trimmingSpacesAndTabs.hasPrefix("URL =") }) {
            lines[i] = urlLine
            lines.removeAll { $0 != urlLine && ($0.trimmingSpacesAndTabs.hasPrefix("URL=") || $0.trimmingSpacesAndTabs.hasPrefix("URL =")) }
        } else if let section = lines.firstIndex(where: { $0.trimmingSpacesAndTabs == "[Node]" }) {
            lines.insert(urlLine, at: section + 1)
        } else {
            lines = ["# Written by `hearthloom-ingest pair`; see README.md for the other keys.", "[Node]", urlLine] + lines
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
