import IngestCore
import Testing

/// Typed keys: one default for the reader and `adapters`, one parser per kind, errors naming
/// file, line and key.
struct ConfigKeyTests {
    static let count = ConfigKey("Count", .integer, default: "5000", "how many")
    static let wait = ConfigKey("Wait", .duration, default: "4min", "how long")
    static let ratio = ConfigKey("Ratio", .number, default: "0.5", "how much")
    static let label = ConfigKey("Label", .string, "a name")
    static let file = ConfigKey("File", .path, whenUnset: "$CONFIG/file", "a file")
    static let tags = ConfigKey("Tag", repeated: .string, default: ["*a*", "*b*"], "globs")
    static let mode = ConfigKey("Mode", .choice(["auto", "csv"]), default: "auto", "the format")
    static let keys: [any ConfigKeyProtocol] = [count, wait, ratio, label, file, tags, mode]

    func section(_ text: String, file: String = "/etc/x/a.conf") throws(ConfigError) -> ConfigSection {
        let ini = try INIFile(path: file, text: "[Adapter]\n" + text)
        return try ConfigSection(file: file, entries: ini.entries, keys: Self.keys)
    }

    @Test func absentKeysReadAsTheirDefault() throws {
        let s = try section("")
        #expect(s[Self.count] == 5000 && s[Self.wait] == 240 && s[Self.ratio] == 0.5)
        #expect(s[Self.label] == nil && s[Self.file] == nil)
        #expect(s[Self.tags] == ["*a*", "*b*"] && s[Self.mode] == "auto")
        #expect(Self.count.defaultValue == 5000 && Self.wait.defaultValue == 240)
    }

    @Test func givenValuesReplaceTheDefault() throws {
        let s = try section("Count=-3\nWait=1h 30min\nRatio=2e3\nLabel=x y\nFile=sub/f.txt\nTag=one\nTag=two\nMode=csv\n")
        #expect(s[Self.count] == -3 && s[Self.wait] == 5400 && s[Self.ratio] == 2000)
        #expect(s[Self.label] == "x y")
        #expect(s[Self.file] == "/etc/x/sub/f.txt", "a relative path is taken from the config file's folder")
        #expect(s[Self.tags] == ["one", "two"], "a repeated key's values replace its default list, in file order")
        #expect(s[Self.mode] == "csv")
    }

    @Test func anEmptyValueClearsARepeatedKeysListSoFar() throws {
        #expect(try section("Tag=\n")[Self.tags] == [], "the default list cleared")
        #expect(try section("Tag=\nTag=c\n")[Self.tags] == ["c"])
        #expect(try section("Tag=one\nTag=\nTag=two\n")[Self.tags] == ["two"], "values before the empty one are dropped too")
    }

    @Test func usageLinesShowTheOneDefault() {
        #expect(Self.count.usageLine == "Count=<integer>  how many (default 5000)")
        #expect(Self.wait.usageLine == "Wait=<duration>  how long (default 4min)")
        #expect(Self.label.usageLine == "Label=<text>  a name")
        #expect(Self.file.usageLine == "File=<path>  a file (default $CONFIG/file)")
        #expect(Self.tags.usageLine == "Tag=<text>  globs (default *a*, *b*, repeatable)")
        #expect(Self.mode.usageLine == "Mode=<auto|csv>  the format (default auto)")
    }

    @Test(arguments: [
        ("Count=ten", "Count", "expected an integer, found ten"),
        ("Count=2.5", "Count", "expected an integer, found 2.5"),
        ("Ratio=half", "Ratio", "expected a number, found half"),
        ("Wait=soon", "Wait", "expected a duration such as 90s, 5min or 2h, found soon"),
        ("Mode=xml", "Mode", "expected one of auto, csv, found xml"),
        ("Label=", "Label", "empty value"),
    ])
    func valuesThatDoNotParseNameFileLineAndKey(line: String, key: String, message: String) {
        #expect(throws: ConfigError(file: "/etc/x/a.conf", line: 3, key: key, message)) { try section("Tag=ok\n" + line + "\n") }
    }

    @Test func aRefusedValueNamesItsLineAndAnAbsentOneNone() throws {
        let s = try section("\nCount=0\n")
        #expect(throws: ConfigError(file: "/etc/x/a.conf", line: 3, key: "Count", "must be at least 1, found 0")) {
            try s.value(Self.count, where: { $0 > 0 }, else: { "must be at least 1, found \($0)" })
        }
        #expect(throws: ConfigError(file: "/etc/x/a.conf", key: "Label", "missing")) {
            try s.value(Self.label, where: { $0 != nil }, else: { _ in "missing" })
        }
        #expect(try s.value(Self.wait, where: { $0 > 0 }, else: { _ in "never" }) == 240)
    }
}
