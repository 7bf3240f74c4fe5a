import FoundationEssentials

/// A one-line progress display on stderr (count, rate, ETA) for long scans and drains.
/// Silent when stderr is not a terminal, so logs and pipes stay clean.
public final class ProgressLine: @unchecked Sendable {
    private let label: String
    private let enabled: Bool
    private let start = ContinuousClock.now
    private var lastDraw = ContinuousClock.now - .seconds(1)
    private var drawn = false

    public init(_ label: String, enabled: Bool = Terminal.stderrIsTerminal) {
        self.label = label; self.enabled = enabled
    }

    /// Redraws at most ten times a second.
    public func update(_ done: Int, of total: Int?, unit: String = "items") {
        guard enabled else { return }
        let now = ContinuousClock.now
        guard now - lastDraw >= .milliseconds(100) else { return }
        lastDraw = now
        let elapsed = Double((now - start).components.attoseconds) / 1e18 + Double((now - start).components.seconds)
        let rate = elapsed > 0 ? Double(done) / elapsed : 0
        var line = "\(label): \(done)"
        if let total { line += "/\(total)" }
        line += " \(unit), \(Int(rate))/s"
        if let total, rate > 0, total > done { line += ", ETA \(Int(Double(total - done) / rate))s" }
        Terminal.writeStderr("\r\u{1B}[K" + line)
        drawn = true
    }

    public func finish() {
        if drawn { Terminal.writeStderr("\r\u{1B}[K") }
        drawn = false
    }
}
