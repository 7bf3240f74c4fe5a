import FoundationEssentials

/// `MaxQueue=` (node.conf) held against the outbox during one pass of scans: how many bytes of
/// item bodies it holds, and how many more it may take. With the node away for a month and a big
/// import, the queue would otherwise grow until the disk is full.
///
/// A commit that would pass the limit is refused before anything of it is written, so the
/// adapter's anchor stays where it was and the next pass goes on from there. An empty outbox
/// always takes one commit, however large, so no adapter is stuck behind a limit smaller than its
/// commits. Captures and live adapters' journals never go through it: they are always kept.
public final class OutboxBudget: Sendable {
    public let limit: Int64
    private let held: Locked<Int64>
    /// What the outbox holds now: asked again before a refusal, as the gate sends meanwhile.
    private let measure: @Sendable () throws(StoreError) -> Int64

    public init(limit: Int64, measure: @escaping @Sendable () throws(StoreError) -> Int64) throws(StoreError) {
        self.limit = limit
        self.measure = measure
        self.held = Locked(try measure())
    }

    public var isFull: Bool { refreshed() >= limit }

    /// Three quarters of the limit or more: what `status` and `doctor` warn of, since the next
    /// commit of a file adapter may be refused from there on.
    public static func isNearlyFull(held: Int64, limit: Int64) -> Bool { held >= limit - limit / 4 }
    public var bytesHeld: Int64 { held.withLock { $0 } }

    /// Counts `bytes` about to be queued, or throws when they would pass the limit.
    func take(_ bytes: Int64) throws(OutboxFull) {
        if tryTake(bytes) { return }
        _ = refreshed()
        guard tryTake(bytes) else { throw OutboxFull(held: bytesHeld, limit: limit) }
    }

    private func tryTake(_ bytes: Int64) -> Bool {
        held.withLock { (held: inout Int64) -> Bool in
            guard held == 0 || held + bytes <= limit else { return false }
            held += bytes
            return true
        }
    }

    /// Reads the outbox again (the gate may have sent some); on a store error keeps the count.
    private func refreshed() -> Int64 {
        guard let now = try? measure() else { return bytesHeld }
        held.withLock { $0 = now }
        return now
    }
}

/// The outbox holds `MaxQueue=`'s worth: an adapter stopped before queuing more.
public struct OutboxFull: Error, Sendable, CustomStringConvertible {
    public var held: Int64
    public var limit: Int64
    public var description: String {
        "the outbox is full: it holds \(Self.text(held)) of MaxQueue=\(Self.text(limit)) (node.conf)"
    }

    /// `1.5 GiB`, `512 MiB`, `20 KiB`.
    public static func text(_ bytes: Int64) -> String {
        for (unit, size) in [("TiB", 1 << 40), ("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)] as [(String, Int64)] where bytes >= size {
            let value = Double(bytes) / Double(size)
            return (value.rounded() == value ? String(Int64(value)) : String(format1: value)) + " " + unit
        }
        return "\(bytes) B"
    }
}
