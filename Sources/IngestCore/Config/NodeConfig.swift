import FoundationEssentials

/// `$CONFIG/node.conf`: which node to send to and how. No file, or no `URL=`, means the
/// embedded local node.
public struct NodeConfig: Sendable {
    public enum Key {
        public static let url = ConfigKey("URL", .string, "the node's base URL (https, or http for a local address)")
        /// Unset: `Paths.defaultTokenFile`.
        public static let tokenFile = ConfigKey("TokenFile", .path, whenUnset: "$CONFIG/token", "file holding the device token (mode 0600)")
        /// Unset: `Paths.defaultCaptureKeyFile`.
        public static let captureKeyFile = ConfigKey("CaptureKeyFile", .path, whenUnset: "$CONFIG/capture-key", "file holding the capture-only key")
        public static let caFile = ConfigKey("CAFile", .path, "extra CA certificate(s) to verify the node's TLS certificate")
        public static let header = ConfigKey("Header", repeated: .string, "extra header sent to the node only, `Name: value`")
        public static let tokenStore = ConfigKey("TokenStore", .choice(["file", "keyring"]), default: "file",
                                                 "where `pair` keeps the token and capture key: files (0600), or the desktop keyring (Secret Service)")
        public static let maxWait = ConfigKey("MaxWait", .duration, default: "60s",
                                              "how long one run waits for a busy or failing node before it stops and keeps the items")
        public static let maxQueue = ConfigKey("MaxQueue", .size, default: "1G",
                                               "how much the outbox may hold for a node that is away; over it, file adapters stop before queuing more and go on later from where they stopped (captures and live fixes are always kept)")
    }
    public static let keys: [any ConfigKeyProtocol] = [Key.url, Key.tokenFile, Key.captureKeyFile, Key.tokenStore, Key.caFile, Key.header, Key.maxWait, Key.maxQueue]

    public var file: String
    public var url: NodeURL?
    public var tokenFile: String
    public var captureKeyFile: String
    /// True for `TokenStore=keyring`: the secrets live in the desktop keyring, not in files.
    public var usesKeyring: Bool
    public var caFile: String?
    public var headers: [(name: String, value: Secret)]
    public var maxWait: Double
    /// Bytes of item bodies the outbox may hold before file adapters stop queuing (``OutboxBudget``).
    public var maxQueue: Int64

    /// Loads `node.conf`; a missing file gives the defaults (embedded local node).
    public static func load(_ paths: Paths) throws(ConfigError) -> NodeConfig {
        let file = paths.nodeConf
        var config = NodeConfig(file: file, url: nil, tokenFile: paths.defaultTokenFile,
                                captureKeyFile: paths.defaultCaptureKeyFile, usesKeyring: false, caFile: nil, headers: [], maxWait: Key.maxWait.defaultValue,
                                maxQueue: Key.maxQueue.defaultValue)
        guard FileSystem.exists(file) else { return config }
        let ini = try INIFile.load(path: file)
        if let stray = ini.entries.first(where: { $0.section != "Node" }) {
            throw ConfigError(file: file, line: stray.line, key: stray.key, "unknown section [\(stray.section)]; node.conf has only [Node]")
        }
        let section = try ConfigSection(file: file, entries: ini.entries, keys: keys)
        if let url = section[Key.url] {
            do { config.url = try NodeURL(url) } catch { throw section.error(Key.url.name, error.message) }
        }
        config.tokenFile = section[Key.tokenFile] ?? config.tokenFile
        config.captureKeyFile = section[Key.captureKeyFile] ?? config.captureKeyFile
        config.usesKeyring = section[Key.tokenStore] == "keyring"
        config.caFile = section[Key.caFile]
        if let ca = config.caFile, !FileSystem.exists(ca) { throw section.error(Key.caFile.name, "\(ca) does not exist") }
        config.maxWait = section[Key.maxWait]
        config.maxQueue = section[Key.maxQueue]
        for header in section[Key.header] {
            let parts = header.split(separator: ":", maxSplits: 1)
            let name = parts.first.map { String($0).trimmingSpacesAndTabs } ?? ""
            guard parts.count == 2, !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }) else {
                throw section.error(Key.header.name, "expected `Name: value`")
            }
            config.headers.append((name, Secret(String(parts[1]).trimmingSpacesAndTabs)))
        }
        return config
    }
}
