import FoundationEssentials

/// What a section's schema and `adapters` need of a key, whatever the type of its value.
public protocol ConfigKeyProtocol: Sendable {
    var name: String { get }
    /// Whether the key may be given more than once, each value adding to a list.
    var repeated: Bool { get }
    /// `Key=<kind>  summary (default …, repeatable)` for `adapters` and `--help`.
    var usageLine: String { get }
    /// Why `text`, written in `file`, is no value of this key; nil when it is one.
    func refusal(of text: String, file: String) -> String?
}

/// One key of a config section, declared once: its name, what `adapters` says about it, its
/// kind's parser, and the one default that `adapters`, the parser and the code reading it share.
///
/// The value type says how the key is read: `ConfigKey<Int>` has a default, `ConfigKey<String?>`
/// may be left out, `ConfigKey<[String]>` is repeatable. A default is written as in a config
/// file (`"4min"`, `"5000"`) and parsed by the key's own kind, so `adapters` prints what a user
/// would write and the code gets the value the parser makes of it.
public struct ConfigKey<Value: Sendable>: ConfigKeyProtocol {
    public let name: String
    public let summary: String
    public let repeated: Bool
    /// What the key reads as when the section does not give it.
    public let defaultValue: Value
    /// The default as `adapters` shows it, e.g. `4min`, `$CONFIG/token`.
    let defaultText: String?
    let kindName: String
    private let refuse: @Sendable (_ text: String, _ file: String) -> String?
    /// The value of the key's texts in `file`, each already checked; no text gives the default.
    let read: @Sendable (_ texts: [String], _ file: String) -> Value

    /// A key that may be given once and has a default.
    public init(_ name: String, _ kind: ConfigKind<Value>, default text: String, _ summary: String) {
        let defaultValue = ConfigKey.parseDefault(text, name: name, kind: kind)
        self.init(name: name, summary: summary, repeated: false, defaultValue: defaultValue, defaultText: text, kind: kind) { texts, file in
            texts.last.flatMap { kind.parse($0, file) } ?? defaultValue
        }
    }

    /// A key that may be given once or left out. `whenUnset` describes, for `adapters`, what the
    /// reading code does instead when the default depends on more than the key (`$CONFIG/token`).
    public init<Wrapped>(_ name: String, _ kind: ConfigKind<Wrapped>, whenUnset: String? = nil, _ summary: String)
    where Value == Wrapped? {
        self.init(name: name, summary: summary, repeated: false, defaultValue: nil, defaultText: whenUnset, kind: kind) { texts, file in
            texts.last.flatMap { kind.parse($0, file) }
        }
    }

    /// A key that may be given any number of times; its value lists them in file order. As in
    /// systemd, an empty value empties the list so far, the default included: `Key=` alone
    /// clears a default list, and values after it start a new one.
    public init<Element>(_ name: String, repeated kind: ConfigKind<Element>, default texts: [String] = [], _ summary: String)
    where Value == [Element] {
        let defaultValue = texts.map { ConfigKey.parseDefault($0, name: name, kind: kind) }
        self.init(name: name, summary: summary, repeated: true, defaultValue: defaultValue,
                  defaultText: texts.isEmpty ? nil : texts.joined(separator: ", "), kind: kind) { texts, file in
            guard !texts.isEmpty else { return defaultValue }
            let sinceCleared = texts.lastIndex(of: "").map { texts[($0 + 1)...] } ?? texts[...]
            return sinceCleared.compactMap { kind.parse($0, file) }
        }
    }

    private init<Element>(name: String, summary: String, repeated: Bool, defaultValue: Value, defaultText: String?,
                          kind: ConfigKind<Element>, read: @escaping @Sendable (_ texts: [String], _ file: String) -> Value) {
        self.name = name; self.summary = summary; self.repeated = repeated
        self.defaultValue = defaultValue; self.defaultText = defaultText; self.kindName = kind.name
        self.refuse = { text, file in (repeated && text.isEmpty) || kind.parse(text, file) != nil ? nil : kind.refusal(text) }
        self.read = read
    }

    /// A default that does not parse is a mistake in the key list, so it stops the program at once.
    private static func parseDefault<Element>(_ text: String, name: String, kind: ConfigKind<Element>) -> Element {
        guard let value = kind.parse(text, "") else { preconditionFailure("\(name): the default \(text) is not a \(kind.name)") }
        return value
    }

    public func refusal(of text: String, file: String) -> String? { refuse(text, file) }

    public var usageLine: String {
        var extras: [String] = []
        if let defaultText { extras.append("default \(defaultText)") }
        if repeated { extras.append("repeatable") }
        let tail = extras.isEmpty ? "" : " (\(extras.joined(separator: ", ")))"
        return "\(name)=<\(kindName)>  \(summary)\(tail)"
    }
}
