/// One of the node's ingest endpoints (`POST /v1/ingest/<name>`), see docs/node-api.md.
///
/// The core knows only `capture`, its own command's; each adapter declares the endpoints it
/// sends to in its own folder (`extension Endpoint { static let photos = Endpoint("photos") }`),
/// so a new adapter needs no change here.
public struct Endpoint: RawRepresentable, Hashable, Sendable, Codable, Comparable, CustomStringConvertible {
    public let rawValue: String

    /// Nil unless `rawValue` is a path segment the node could serve: lowercase ASCII letters,
    /// digits and hyphens, as every endpoint of docs/node-api.md is.
    public init?(rawValue: String) {
        guard !rawValue.isEmpty, rawValue.utf8.count <= 64,
              rawValue.utf8.allSatisfy({ (0x61...0x7a).contains($0) || (0x30...0x39).contains($0) || $0 == 0x2d }) else { return nil }
        self.rawValue = rawValue
    }

    /// A name known to be valid, as an adapter declares it.
    public init(_ name: StaticString) {
        guard let endpoint = Endpoint(rawValue: name.description) else { preconditionFailure("\(name) is not an endpoint name") }
        self = endpoint
    }

    /// `capture`: the quick notes of `hearthloom-ingest capture`.
    public static let capture = Endpoint("capture")

    public var description: String { rawValue }
    public static func < (a: Endpoint, b: Endpoint) -> Bool { a.rawValue < b.rawValue }
}

extension Dictionary where Key == Endpoint, Value == Int {
    /// `capture 2, photos 10`, sorted by endpoint; `empty` when there is nothing.
    public func summary(empty: String) -> String {
        isEmpty ? empty : sorted { $0.key < $1.key }.map { "\($0.key.rawValue) \($0.value)" }.joined(separator: ", ")
    }
}
