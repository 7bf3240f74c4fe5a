import FoundationEssentials
import Synchronization

/// A one-line progress display on stderr (count, rate, ETA) for long scans and drains.
/// Silent when stderr is not a terminal, so logs and pipes stay clean. Adapters may report
/// from their worker threads, so what it last drew is kept under a lock.
public final class ProgressLine: Sendable {
    private struct Drawn {
        var at = ContinuousClock.now - .seconds(1)
        var visible = false
    }

    private let label: String
    private let enabled: Bool
    private let start = ContinuousClock.now
    private let drawn = Locked(Drawn())

    public init(_ label: String, enabled: Bool = Terminal.stderrIsTerminal) {
        self.label = label; self.enabled = enabled
    }

    /// Redraws at most ten times a second.
    public func update(_ done: Int, of total: Int?, unit: String = "items") {
        guard enabled else { return }
        let now = ContinuousClock.now
        let due = drawn.withLock { drawn in
            guard now - drawn.at >= .milliseconds(100) else { return false }
            drawn.at = now; drawn.visible = true
            return true
        }
        guard due else { return }
        let elapsed = Double((now - start).components.attoseconds) / 1e18 + Double((now - start).components.seconds)
        let rate = elapsed > 0 ? Double(done) / elapsed : 0
        var line = "\(label): \(done)"
        if let total { line += "/\(total)" }
        line += " \(unit), \(Int(rate))/s"
        if let total, rate > 0, total > done { line += ", ETA \(Int(Double(total - done) / rate))s" }
        Terminal.writeStderr("\r\u{1B}[K" + line)
    }

    public func finish() {
        if drawn.withLock({ drawn in defer { drawn.visible = false }; return drawn.visible }) { Terminal.writeStderr("\r\u{1B}[K") }
    }
}
