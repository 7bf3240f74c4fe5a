import FoundationEssentials

/// The values of one section, checked against its keys, read through those keys; errors name
/// the file, line and key.
public struct ConfigSection: Sendable {
    public let file: String
    private var values: [String: [INIFile.Entry]] = [:]

    /// - Throws: `ConfigError` for a key not in `keys`, a non-repeatable key given twice,
    ///   or a value that does not parse as its kind.
    public init(file: String, entries: [INIFile.Entry], keys: [any ConfigKeyProtocol]) throws(ConfigError) {
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
            if let refusal = spec.refusal(of: entry.value, file: file) {
                throw ConfigError(file: file, line: entry.line, key: entry.key, refusal)
            }
            values[entry.key, default: []].append(entry)
        }
    }

    /// The key's value: what the section gives (every value, for a repeated key), else its default.
    public subscript<Value>(key: ConfigKey<Value>) -> Value {
        key.read(values[key.name]?.map(\.value) ?? [], file)
    }

    /// The key's value, when `isAllowed` accepts it.
    /// - Throws: `ConfigError` at the key's line (none when it is not given) saying `problem`.
    public func value<Value>(_ key: ConfigKey<Value>, where isAllowed: (Value) -> Bool,
                             else problem: (Value) -> String) throws(ConfigError) -> Value {
        let value = self[key]
        guard isAllowed(value) else { throw error(key.name, problem(value)) }
        return value
    }

    /// An error about `key`'s value, pointing at its line.
    public func error(_ key: String, _ message: String) -> ConfigError {
        ConfigError(file: file, line: values[key]?.first?.line, key: key, message)
    }

    static func parseBool(_ s: String) -> Bool? {
        switch s.lowercased() {
        case "yes", "true", "on", "1": true
        case "no", "false", "off", "0": false
        default: nil
        }
    }

    /// systemd-style durations in seconds: `90`, `90s`, `5min`, `2h`, `1d`, `1h 30min`, `500ms`.
    /// Bytes from systemd-style text: `1073741824`, `512K`, `800M`, `1G`, `2T` (powers of 1024),
    /// or `infinity` for no limit.
    public static func parseSize(_ s: String) -> Int64? {
        if s == "infinity" { return Int64.max }
        let units: [Character: Int64] = ["K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40]
        var digits = Substring(s), factor: Int64 = 1
        if let last = s.last, let f = units[last] { digits = s.dropLast(); factor = f }
        guard let n = Int64(digits), n > 0 else { return nil }
        let (bytes, overflow) = n.multipliedReportingOverflow(by: factor)
        return overflow ? nil : bytes
    }

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
