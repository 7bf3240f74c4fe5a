import FoundationEssentials

/// One adapter instance: `$CONFIG/adapters.d/<name>.conf`, `[Adapter]` section.
public struct AdapterConfig: Sendable {
    /// The file name without `.conf`; used by `run --adapter` and `resync`.
    public let name: String
    public let type: String
    public let enabled: Bool
    /// The checked keys of `[Adapter]`, typed accessors included.
    public let section: ConfigSection
    public var file: String { section.file }

    /// The keys every adapter type takes.
    public enum Key {
        public static let type = ConfigKey("Type", .string, "the adapter type (see `hearthloom-ingest adapters`)")
        public static let enabled = ConfigKey("Enabled", .bool, default: "yes", "whether `run` scans this instance")
    }
    public static let commonKeys: [any ConfigKeyProtocol] = [Key.type, Key.enabled]

    public init(name: String, type: String, enabled: Bool, section: ConfigSection) {
        self.name = name; self.type = type; self.enabled = enabled; self.section = section
    }
}

/// The adapter types this build has. The CLI owns the list (one line per adapter).
public struct AdapterRegistry: Sendable {
    public let types: [any DeviceAdapter.Type]
    public init(_ types: [any DeviceAdapter.Type]) { self.types = types }

    public func type(named name: String) -> (any DeviceAdapter.Type)? { types.first { $0.type == name } }

    /// Loads one `adapters.d/*.conf`, checking every key against the type's schema.
    public func loadConfig(file: String) throws(ConfigError) -> AdapterConfig {
        let ini = try INIFile.load(path: file)
        if let stray = ini.entries.first(where: { $0.section != "Adapter" }) {
            throw ConfigError(file: file, line: stray.line, key: stray.key, "unknown section [\(stray.section)]; adapter files have only [Adapter]")
        }
        guard let typeEntry = ini.entries.last(where: { $0.key == "Type" }) else {
            throw ConfigError(file: file, key: "Type", "missing; say which adapter this is, e.g. Type=photos")
        }
        guard let adapterType = type(named: typeEntry.value) else {
            throw ConfigError(file: file, line: typeEntry.line, key: "Type",
                              "unknown adapter type \(typeEntry.value); this build has \(types.map { $0.type }.joined(separator: ", "))")
        }
        let section = try ConfigSection(file: file, entries: ini.entries, keys: AdapterConfig.commonKeys + adapterType.configKeys)
        let name = String(FileSystem.baseName(file).dropLast(".conf".count))
        return AdapterConfig(name: name, type: adapterType.type, enabled: section[AdapterConfig.Key.enabled], section: section)
    }

    /// Every `*.conf` in `adapters.d`, sorted by name. A missing folder means no adapters.
    public func loadAll(_ paths: Paths) throws(ConfigError) -> [AdapterConfig] {
        var configs: [AdapterConfig] = []
        for file in try AdapterRegistry.configFiles(paths) { configs.append(try loadConfig(file: file)) }
        return configs
    }

    /// The `*.conf` files of `adapters.d`, sorted by name; none when the folder is missing.
    public static func configFiles(_ paths: Paths) throws(ConfigError) -> [String] {
        let dir = paths.adaptersDir
        guard FileSystem.isDirectory(dir) else { return [] }
        let names: [String]
        do { names = try FileManager.default.contentsOfDirectory(atPath: dir) } catch {
            throw ConfigError(file: dir, "cannot list the folder: \(error)")
        }
        return names.sorted().filter { $0.hasSuffix(".conf") && !$0.hasPrefix(".") }.map { dir.appendingPath($0) }
    }

    /// Where `config`'s records live, by its type's declared ``RecordScope``; nil for a type that
    /// keeps none (not ``RecordKeeping``).
    public func recordSpace(of config: AdapterConfig) -> String? {
        guard let keeper = type(named: config.type) as? any RecordKeeping.Type else { return nil }
        return switch keeper.recordScope {
        case .instance: StateStore.space(instance: config.name)
        case .type: StateStore.space(type: config.type)
        }
    }

    public func make(_ config: AdapterConfig) throws(ConfigError) -> any DeviceAdapter {
        guard let t = type(named: config.type) else { throw ConfigError(file: config.file, key: "Type", "unknown adapter type \(config.type)") }
        return try t.init(config: config)
    }
}
