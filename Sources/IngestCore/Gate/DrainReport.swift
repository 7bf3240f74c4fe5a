import FoundationEssentials

/// How a drain should behave.
public struct DrainPolicy: Sendable {
    /// Total seconds this drain may spend waiting on a busy or failing node before it stops.
    public var maxWait: Double
    /// How long to wait for another process that is draining.
    public var lockWait: Double
    /// Only the capture queue (the `capture` command).
    public var onlyCaptures: Bool
    public var maxItems = 1000
    /// 1 MiB less room for the envelope (`actor`, `device`, `source`).
    public var maxItemBytes = (1 << 20) - 4096

    public init(maxWait: Double, lockWait: Double = 30, onlyCaptures: Bool = false) {
        self.maxWait = maxWait; self.lockWait = lockWait; self.onlyCaptures = onlyCaptures
    }
}

/// What a drain did, for the summary line and the exit code.
public struct DrainReport: Sendable {
    public enum Stop: Sendable, Equatable {
        /// 401 on the device token: pair again.
        case unauthorized
        /// No answer, or only failures, within the wait budget.
        case unreachable(String)
        /// The node's TLS certificate was not trusted.
        case untrusted(String)
        /// The node asked for a pause longer than this run waits; remembered for the next run.
        case busyUntil(Date)
        /// An earlier run was told to wait until then.
        case deferredUntil(Date)
        /// The state store failed.
        case storeFailed(String)
    }

    public var delivered: [Endpoint: Int] = [:]
    public var accepted = 0
    public var duplicates = 0
    public var deadLettered = 0
    /// Endpoints this node refused (404, 403), with the reason; their items stay queued.
    public var parked: [Endpoint: String] = [:]
    public var stop: Stop?
    /// Another process held the drain lock; it delivers what is queued.
    public var lockedElsewhere = false

    public init() {}

    public var deliveredTotal: Int { delivered.values.reduce(0, +) }

    /// Adds what a later drain of the same run did.
    public mutating func merge(_ later: DrainReport) {
        delivered.merge(later.delivered, uniquingKeysWith: +)
        accepted += later.accepted
        duplicates += later.duplicates
        deadLettered += later.deadLettered
        parked.merge(later.parked) { _, newer in newer }
        stop = later.stop ?? stop
        lockedElsewhere = lockedElsewhere || later.lockedElsewhere
    }

    /// DESIGN.md: 4 when the node is unreachable or refused (everything kept), else 1 when items
    /// were dead-lettered, else 0.
    public var exitCode: ExitCode {
        if let stop {
            if case .deferredUntil = stop { return deadLettered > 0 ? .someFailed : .ok }
            return .node
        }
        if !parked.isEmpty { return .node }
        return deadLettered > 0 ? .someFailed : .ok
    }
}
