import FoundationEssentials

/// A systemd-style INI file: `[Section]`, `Key=value`, `#`/`;` comment lines, a trailing
/// ` # comment` after a value, `\` at the end of a line continues it, and a repeated key
/// makes a list. Nothing here knows which keys exist; `ConfigSection` checks that.
public struct INIFile: Sendable {
    public struct Entry: Sendable, Equatable {
        public var section: String
        public var key: String
        public var value: String
        public var line: Int
    }

    public let path: String
    public private(set) var entries: [Entry] = []

    public init(path: String, text: String) throws(ConfigError) {
        self.path = path
        var section: String?
        var pending: (start: Int, text: String)?
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let number = index + 1
            var line = String(raw)
            if line.hasSuffix("\r") { line.removeLast() }
            if var p = pending {
                p.text += " " + line.trimmingSpacesAndTabs
                pending = nil
                line = p.text
                if line.hasSuffix("\\") { line.removeLast(); pending = (p.start, line.trimmingSpacesAndTabs); continue }
                try addEntry(line, lineNumber: p.start, section: section)
                continue
            }
            let trimmed = line.trimmingSpacesAndTabs
            if trimmed.isEmpty || trimmed.hasPrefix("#") || trimmed.hasPrefix(";") { continue }
            if trimmed.hasPrefix("[") {
                guard trimmed.hasSuffix("]"), trimmed.count > 2 else {
                    throw ConfigError(file: path, line: number, "malformed section header \(trimmed)")
                }
                section = String(trimmed.dropFirst().dropLast()).trimmingSpacesAndTabs
                continue
            }
            if trimmed.hasSuffix("\\") { pending = (number, String(trimmed.dropLast()).trimmingSpacesAndTabs); continue }
            try addEntry(trimmed, lineNumber: number, section: section)
        }
        if let p = pending { try addEntry(p.text, lineNumber: p.start, section: section) }
    }

    /// Reads and parses `path`; a missing or unreadable file is a `ConfigError` naming it.
    public static func load(path: String) throws(ConfigError) -> INIFile {
        let text: String
        do { text = try FileSystem.readText(path) } catch { throw ConfigError(file: path, error.message) }
        return try INIFile(path: path, text: text)
    }

    private mutating func addEntry(_ line: String, lineNumber: Int, section: String?) throws(ConfigError) {
        guard let eq = line.firstIndex(of: "=") else {
            throw ConfigError(file: path, line: lineNumber, "expected Key=value, found \(line)")
        }
        let key = String(line[..<eq]).trimmingSpacesAndTabs
        guard !key.isEmpty, key.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "." || $0 == "_" || $0 == "-" }) else {
            throw ConfigError(file: path, line: lineNumber, "malformed key \(key.isEmpty ? "(empty)" : key)")
        }
        guard let section else {
            throw ConfigError(file: path, line: lineNumber, key: key, "key outside any [Section]")
        }
        var value = String(line[line.index(after: eq)...]).trimmingSpacesAndTabs
        // An inline comment must follow whitespace, so values such as URLs with '#' survive.
        if let hash = value.firstRange(of: " #") ?? value.firstRange(of: "\t#") { value = String(value[..<hash.lowerBound]).trimmingSpacesAndTabs }
        entries.append(Entry(section: section, key: key, value: value, line: lineNumber))
    }
}

extension String {
    /// Without leading and trailing spaces and tabs.
    public var trimmingSpacesAndTabs: String {
        var s = Substring(self)
        while let f = s.first, f == " " || f == "\t" { s = s.dropFirst() }
        while let l = s.last, l == " " || l == "\t" { s = s.dropLast() }
        return String(s)
    }
}
