/// A token or key. It prints as `<redacted>` in every interpolation, log line and error,
/// so the only way to the value is `withValue`, used where the HTTP header is built.
public struct Secret: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible {
    private let value: String
    public init(_ value: String) { self.value = value }
    public var description: String { "<redacted>" }
    public var debugDescription: String { "<redacted>" }
    public func withValue<R>(_ body: (String) throws -> R) rethrows -> R { try body(value) }
}
