import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// A node's base URL, checked against docs/node-api.md: `https` anywhere, plain `http` only
/// for local addresses (loopback, RFC 1918, RFC 4193, link-local, `*.local`, single-label names).
public struct NodeURL: Sendable, Equatable, CustomStringConvertible {
    public struct Refusal: Error, Sendable { public var message: String }

    public let scheme: String
    public let host: String
    public let port: Int?
    /// Base path without the trailing slash, usually empty.
    public let path: String

    public init(_ text: String) throws(Refusal) {
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(),
              let host = components.host, !host.isEmpty else {
            throw Refusal(message: "\(text) is not a URL such as https://node.example.com")
        }
        guard scheme == "https" || scheme == "http" else { throw Refusal(message: "\(scheme): URLs are not supported; use https") }
        guard components.user == nil, components.password == nil else {
            throw Refusal(message: "the URL must not carry a user name or password; pair with a token instead")
        }
        guard components.query == nil, components.fragment == nil else { throw Refusal(message: "the URL must not have a query or fragment") }
        let bareHost = host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host
        if scheme == "http" && !NodeURL.isLocal(bareHost) {
            throw Refusal(message: "plain http is allowed only for local addresses; use https://\(host)")
        }
        self.scheme = scheme
        self.host = host.lowercased()
        self.port = components.port
        var path = components.path
        while path.hasSuffix("/") { path.removeLast() }
        self.path = path
    }

    public var description: String { origin + path }

    /// `scheme://host[:port]`, without the path: the keyring's `node` attribute.
    public var origin: String {
        let h = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        return "\(scheme)://\(h)\(port.map { ":\($0)" } ?? "")"
    }

    /// The absolute URL of an API path such as `/v1/health`.
    public func url(_ apiPath: String) -> String { description + apiPath }

    /// Local per docs/node-api.md.
    public static func isLocal(_ host: String) -> Bool {
        let h = host.lowercased()
        if h == "localhost" || h.hasSuffix(".localhost") || h.hasSuffix(".local") { return true }
        var v4 = in_addr()
        if inet_pton(AF_INET, h, &v4) == 1 {
            let a = UInt32(bigEndian: v4.s_addr)
            let b0 = a >> 24, b1 = (a >> 16) & 0xFF
            return b0 == 127 || b0 == 10 || (b0 == 172 && (16...31).contains(b1)) || (b0 == 192 && b1 == 168)
                || (b0 == 169 && b1 == 254)
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, h, &v6) == 1 {
            let bytes = withUnsafeBytes(of: v6) { Array($0) }
            let loopback = bytes[0..<15].allSatisfy { $0 == 0 } && bytes[15] == 1
            let uniqueLocal = bytes[0] & 0xFE == 0xFC                 // fc00::/7
            let linkLocal = bytes[0] == 0xFE && bytes[1] & 0xC0 == 0x80 // fe80::/10
            return loopback || uniqueLocal || linkLocal
        }
        // A single-label name (no dot) resolves on the local network only.
        return !h.contains(".") && !h.isEmpty
    }
}
