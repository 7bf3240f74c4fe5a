import FoundationEssentials

/// One key an adapter (or node.conf) accepts, with what `adapters` prints about it.
public struct ConfigKey: Sendable {
    public enum Kind: Sendable {
        case string, path, bool, integer, duration, number
        case choice([String])
    }
    public var name: String
    public var kind: Kind
    public var repeated: Bool
    public var summary: String
    public var defaultValue: String?

    public init(_ name: String, _ kind: Kind, repeated: Bool = false, default defaultValue: String? = nil, _ summary: String) {
        self.name = name; self.kind = kind; self.repeated = repeated; self.summary = summary; self.defaultValue = defaultValue
    }

    var kindName: String {
        switch kind {
        case .string: "text"
        case .path: "path"
        case .bool: "yes|no"
        case .integer: "integer"
        case .duration: "duration"
        case .number: "number"
        case .choice(let options): options.joined(separator: "|")
        }
    }

    /// `Key=<kind>  summary (default …, repeatable)` for `adapters` and `--help`.
    public var usageLine: String {
        var extras: [String] = []
        if let defaultValue { extras.append("default \(defaultValue)") }
        if repeated { extras.append("repeatable") }
        let tail = extras.isEmpty ? "" : " (\(extras.joined(separator: ", ")))"
        return "\(name)=<\(kindName)>  \(summary)\(tail)"
    }
}

/// The values of one section, checked against a schema, with typed accessors whose errors
/// name the file, line and key.
public struct ConfigSection: Sendable {
    public let file: String
    private var values: [String: [INIFile.Entry]] = [:]

    /// - Throws: `ConfigError` for a key not in `keys`, a non-repeatable key given twice,
    ///   or a value that does not parse as its kind.
    public init(file: String, entries: [INIFile.Entry], keys: [ConfigKey]) throws(ConfigError) {
        self.file = file
        let known = Dictionary(keys.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        for entry in entries {
            guard let spec = known[entry.key] else {
                let hint = keys.map(\.name).filter { $0.lowercased() == entry.key.lowercased() }.first
                throw ConfigError(file: file, line: entry.line, key: entry.key,
                                  "unknown key" + (hint.map { " (did you mean \($0)?)" } ?? ""))
            }
            if !spec.repeated, let first = values[entry.key]?.first {
                throw ConfigError(file: file, line: entry.line, key: entry.key,
                                  "given twice (first on line \(first.line)); only one value is allowed")
            }
            try ConfigSection.check(entry, spec, file: file)
            values[entry.key, default: []].append(entry)
        }
    }

    static func check(_ entry: INIFile.Entry, _ spec: ConfigKey, file: String) throws(ConfigError) {
        let fail = { (what: String) in ConfigError(file: file, line: entry.line, key: entry.key, what) }
        switch spec.kind {
        case .string, .path:
            if entry.value.isEmpty { throw fail("empty value") }
        case .bool:
            if ConfigSection.parseBool(entry.value) == nil { throw fail("expected yes or no, found \(entry.value)") }
        case .integer:
            if Int(entry.value) == nil { throw fail("expected an integer, found \(entry.value)") }
        case .number:
            if Double(entry.value) == nil { throw fail("expected a number, found \(entry.value)") }
        case .duration:
            if ConfigSection.parseDuration(entry.value) == nil {
                throw fail("expected a duration such as 90s, 5min or 2h, found \(entry.value)")
            }
        case .choice(let options):
            if !options.contains(entry.value) { throw fail("expected one of \(options.joined(separator: ", ")), found \(entry.value)") }
        }
    }

    public func line(of key: String) -> Int? { values[key]?.first?.line }
    public func string(_ key: String) -> String? { values[key]?.last?.value }
    public func strings(_ key: String) -> [String] { values[key]?.map(\.value) ?? [] }
    /// `~` and `$VAR` expanded; a relative path is taken from the folder of the config file.
    public func path(_ key: String) -> String? { string(key).map(resolve) }
    public func paths(_ key: String) -> [String] { strings(key).map(resolve) }

    private func resolve(_ path: String) -> String {
        let expanded = FileSystem.expandPath(path)
        return expanded.hasPrefix("/") ? expanded : file.deletingLastPathComponent.appendingPath(expanded)
    }
    public func bool(_ key: String, default d: Bool) -> Bool { string(key).flatMap(ConfigSection.parseBool) ?? d }
    public func number(_ key: String, default d: Double) -> Double { string(key).flatMap { Double($0) } ?? d }
    /// Seconds.
    public func duration(_ key: String, default d: Double) -> Double { string(key).flatMap(ConfigSection.parseDuration) ?? d }

    /// An error about `key`'s value, pointing at its line.
    public func error(_ key: String, _ message: String) -> ConfigError {
        ConfigError(file: file, line: line(of: key), key: key, message)
    }

    static func parseBool(_ s: String) -> Bool? {
        switch s.lowercased() {
        case "yes", "true", "on", "1": true
        case "no", "false", "off", "0": false
        default: nil
        }
    }

    /// systemd-style durations in seconds: `90`, `90s`, `5min`, `2h`, `1d`, `1h 30min`, `500ms`.
    public static func parseDuration(_ s: String) -> Double? {
        let units: [(String, Double)] = [("ms", 0.001), ("sec", 1), ("s", 1), ("min", 60), ("m", 60),
                                         ("hours", 3600), ("hour", 3600), ("h", 3600), ("days", 86400), ("day", 86400), ("d", 86400),
                                         ("weeks", 604800), ("w", 604800)]
        var total = 0.0
        var parts = 0
        for token in s.split(whereSeparator: { $0 == " " }) {
            let digits = token.prefix { $0.isNumber || $0 == "." }
            guard let n = Double(digits), n >= 0 else { return nil }
            let unit = String(token.dropFirst(digits.count))
            if unit.isEmpty { total += n } else if let f = units.first(where: { $0.0 == unit })?.1 { total += n * f } else { return nil }
            parts += 1
        }
        return parts > 0 ? total : nil
    }
}
