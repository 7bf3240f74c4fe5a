/// W3C Trace Context for the node's logs: one trace per `run` (or `watch` cycle), one span per
/// request, sent as `traceparent: 00-<trace id>-<span id>-01` to the node's origin only, as the
/// phone app's requests carry theirs. `-v -v` logs the trace id so a run can be found there.
public struct TraceID: Sendable, Equatable, CustomStringConvertible {
    /// 32 lower-case hex digits, never all zero (the spec's invalid value).
    public let hex: String

    public static func random() -> TraceID { TraceID(hex: nonZeroHex(bytes: 16)) }

    /// The `traceparent` value of one new span (request) of this trace, sampled.
    public func newSpanHeader() -> String { "traceparent: 00-\(hex)-\(TraceID.nonZeroHex(bytes: 8))-01" }

    public var description: String { hex }

    private static func nonZeroHex(bytes: Int) -> String {
        while true {
            let raw = Digest.randomBytes(bytes)
            if raw.contains(where: { $0 != 0 }) { return Digest.hex(raw) }
        }
    }
}
