import FoundationEssentials

/// `$CONFIG/node.conf`: which node to send to and how. No file, or no `URL=`, means the
/// embedded local node.
public struct NodeConfig: Sendable {
    public static let keys: [ConfigKey] = [
        ConfigKey("URL", .string, "the node's base URL (https, or http for a local address)"),
        ConfigKey("TokenFile", .path, default: "$CONFIG/token", "file holding the device token (mode 0600)"),
        ConfigKey("CaptureKeyFile", .path, default: "$CONFIG/capture-key", "file holding the capture-only key"),
        ConfigKey("CAFile", .path, "extra CA certificate(s) to verify the node's TLS certificate"),
        ConfigKey("Header", .string, repeated: true, "extra header sent to the node only, `Name: value`"),
        ConfigKey("MaxWait", .duration, default: "60s", "how long one run waits for a busy or failing node before it stops and keeps the items"),
    ]

    public var file: String
    public var url: NodeURL?
    public var tokenFile: String
    public var captureKeyFile: String
    public var caFile: String?
    public var headers: [(name: String, value: Secret)]
    public var maxWait: Double

    /// Loads `node.conf`; a missing file gives the defaults (embedded local node).
    public static func load(_ paths: Paths) throws(ConfigError) -> NodeConfig {
        let file = paths.nodeConf
        var config = NodeConfig(file: file, url: nil, tokenFile: paths.defaultTokenFile,
                                captureKeyFile: paths.defaultCaptureKeyFile, caFile: nil, headers: [], maxWait: 60)
        guard FileSystem.exists(file) else { return config }
        let ini = try INIFile.load(path: file)
        if let stray = ini.entries.first(where: { $0.section != "Node" }) {
            throw ConfigError(file: file, line: stray.line, key: stray.key, "unknown section [\(stray.section)]; node.conf has only [Node]")
        }
        let section = try ConfigSection(file: file, entries: ini.entries, keys: keys)
        if let url = section.string("URL") {
            do { config.url = try NodeURL(url) } catch { throw section.error("URL", error.message) }
        }
        config.tokenFile = section.path("TokenFile") ?? config.tokenFile
        config.captureKeyFile = section.path("CaptureKeyFile") ?? config.captureKeyFile
        config.caFile = section.path("CAFile")
        if let ca = config.caFile, !FileSystem.exists(ca) { throw section.error("CAFile", "\(ca) does not exist") }
        config.maxWait = section.duration("MaxWait", default: 60)
        for header in section.strings("Header") {
            let parts = header.split(separator: ":", maxSplits: 1)
            let name = parts.first.map { String($0).trimmed } ?? ""
            guard parts.count == 2, !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }) else {
                throw section.error("Header", "expected `Name: value`")
            }
            config.headers.append((name, Secret(String(parts[1]).trimmed)))
        }
        return config
    }
}
