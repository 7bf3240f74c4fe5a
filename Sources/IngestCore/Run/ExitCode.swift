/// The process exit codes DESIGN.md fixes.
public enum ExitCode: Int32, Sendable, Error {
    case ok = 0
    /// Some items failed or were dead-lettered, or an adapter's scan failed.
    case someFailed = 1
    case usage = 2
    case config = 3
    /// The node is unreachable or refused (auth, too old); everything is kept for later.
    case node = 4
}

/// A failure the CLI prints as one line and turns into an exit code.
public struct AgentError: Error, Sendable, CustomStringConvertible {
    public var code: ExitCode
    public var message: String
    public init(_ code: ExitCode, _ message: String) { self.code = code; self.message = message }
    public var description: String { message }

    public static func config(_ e: ConfigError) -> AgentError { AgentError(.config, e.description) }
    /// A state store that cannot be opened is a setup problem (3); a full disk while queueing is a failure (1).
    public static func store(_ e: StoreError) -> AgentError {
        if case .sqlite(let s) = e, s.isDiskFull { return AgentError(.someFailed, e.description) }
        return AgentError(.config, e.description)
    }
}
