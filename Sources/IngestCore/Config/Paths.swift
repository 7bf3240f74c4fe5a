import FoundationEssentials

/// Where the agent keeps its configuration and its state.
///
/// Config: `--config-dir`, else `$HEARTHLOOM_CONFIG_DIR`, else `$XDG_CONFIG_HOME/hearthloom`
/// (`~/.config/hearthloom`). State: `--state-dir`, else `$HEARTHLOOM_STATE_DIR`, else
/// `$XDG_STATE_HOME/hearthloom` (`~/.local/state/hearthloom`).
public struct Paths: Sendable {
    public var configDir: String
    public var stateDir: String

    public init(configDir: String? = nil, stateDir: String? = nil, environment: (String) -> String? = FileSystem.environment) {
        func nonEmpty(_ s: String?) -> String? { s.flatMap { $0.isEmpty ? nil : $0 } }
        self.configDir = nonEmpty(configDir).map(FileSystem.expandPath)
            ?? nonEmpty(environment("HEARTHLOOM_CONFIG_DIR"))
            ?? (nonEmpty(environment("XDG_CONFIG_HOME")) ?? FileSystem.home + "/.config") + "/hearthloom"
        self.stateDir = nonEmpty(stateDir).map(FileSystem.expandPath)
            ?? nonEmpty(environment("HEARTHLOOM_STATE_DIR"))
            ?? (nonEmpty(environment("XDG_STATE_HOME")) ?? FileSystem.home + "/.local/state") + "/hearthloom"
    }

    public var nodeConf: String { configDir.appendingPath("node.conf") }
    public var adaptersDir: String { configDir.appendingPath("adapters.d") }
    public var defaultTokenFile: String { configDir.appendingPath("token") }
    public var defaultCaptureKeyFile: String { configDir.appendingPath("capture-key") }
    public var stateDatabase: String { stateDir.appendingPath("state.db") }
    public var localNodeDatabase: String { stateDir.appendingPath("local-node.db") }
    public var drainLock: String { stateDir.appendingPath("drain.lock") }
    /// Held by whoever follows or scans a live adapter instance, so `watch` and a timer `run` never both do.
    public func liveLock(_ adapter: String) -> String { stateDir.appendingPath("live-\(adapter).lock") }
}
