import FoundationEssentials

/// How one value of a config key is written: what `adapters` calls it, the one parser for its
/// text, and what the error line says about text that is not one.
public struct ConfigKind<Value: Sendable>: Sendable {
    /// Shown as `Key=<name>` by `adapters`: `integer`, `yes|no`.
    public let name: String
    /// The value `text` stands for, or nil. `file` is the config file it came from: a relative
    /// path is taken from that file's folder.
    let parse: @Sendable (_ text: String, _ file: String) -> Value?
    /// Why `text` is no value of this kind, e.g. `expected an integer, found ten`.
    let refusal: @Sendable (_ text: String) -> String

    init(name: String, parse: @escaping @Sendable (_ text: String, _ file: String) -> Value?,
         refusal: @escaping @Sendable (_ text: String) -> String) {
        self.name = name; self.parse = parse; self.refusal = refusal
    }
}

extension ConfigKind where Value == String {
    public static var string: Self {
        Self(name: "text", parse: { text, _ in text.isEmpty ? nil : text }, refusal: { _ in "empty value" })
    }

    /// `~` and `$VAR` expanded; a relative path is taken from the folder of the config file.
    public static var path: Self {
        Self(name: "path", parse: { text, file in
            guard !text.isEmpty else { return nil }
            let expanded = FileSystem.expandPath(text)
            return expanded.hasPrefix("/") ? expanded : file.deletingLastPathComponent.appendingPath(expanded)
        }, refusal: { _ in "empty value" })
    }

    public static func choice(_ options: [String]) -> Self {
        Self(name: options.joined(separator: "|"), parse: { text, _ in options.contains(text) ? text : nil },
             refusal: { text in "expected one of \(options.joined(separator: ", ")), found \(text)" })
    }
}

extension ConfigKind where Value == Bool {
    public static var bool: Self {
        Self(name: "yes|no", parse: { text, _ in ConfigSection.parseBool(text) }, refusal: { text in "expected yes or no, found \(text)" })
    }
}

extension ConfigKind where Value == Int {
    public static var integer: Self {
        Self(name: "integer", parse: { text, _ in Int(text) }, refusal: { text in "expected an integer, found \(text)" })
    }
}

extension ConfigKind where Value == Int64 {
    /// Bytes, from systemd-style text (see `ConfigSection.parseSize`).
    public static var size: Self {
        Self(name: "size", parse: { text, _ in ConfigSection.parseSize(text) },
             refusal: { text in "expected a size such as 512M, 1G or infinity, found \(text)" })
    }
}

extension ConfigKind where Value == Double {
    public static var number: Self {
        Self(name: "number", parse: { text, _ in Double(text) }, refusal: { text in "expected a number, found \(text)" })
    }

    /// Seconds, from systemd-style text (see `ConfigSection.parseDuration`).
    public static var duration: Self {
        Self(name: "duration", parse: { text, _ in ConfigSection.parseDuration(text) },
             refusal: { text in "expected a duration such as 90s, 5min or 2h, found \(text)" })
    }
}
