import IngestCore
import Testing

struct INIFileTests {
    @Test func parsesSectionsRepeatedKeysContinuationsAndComments() throws {
        let ini = try INIFile(path: "photos.conf", text: """
            # leading comment
            ; another
            [Adapter]
            Type = photos
            Path=~/Pictures
            Path=/media/phone/DCIM   # an inline comment
            Exclude=*/cache/* \\
              */.thumbnails/*
            URL=https://x.example/#frag
            """)
        #expect(ini.entries.map(\.key) == ["Type", "Path", "Path", "Exclude", "URL"])
        #expect(ini.entries[2].value == "/media/phone/DCIM")
        #expect(ini.entries[3].value == "*/cache/* */.thumbnails/*")
        #expect(ini.entries[3].line == 7)
        #expect(ini.entries[4].value == "https://x.example/#frag", "a # without whitespace before it is part of the value")
    }

    @Test func errorsNameTheLine() {
        #expect(throws: ConfigError(file: "a.conf", line: 2, "expected Key=value, found just words")) {
            try INIFile(path: "a.conf", text: "[Node]\njust words\n")
        }
        #expect(throws: ConfigError(file: "a.conf", line: 1, key: "URL", "key outside any [Section]")) {
            try INIFile(path: "a.conf", text: "URL=x\n")
        }
    }
}

struct ConfigSectionTests {
    static let enabled = ConfigKey("Enabled", .bool, default: "yes", "on")
    static let interval = ConfigKey("Interval", .duration, default: "0", "how often")
    static let path = ConfigKey("Path", repeated: .path, "folders")
    static let mode = ConfigKey("Mode", .choice(["a", "b"]), "mode")
    static let keys: [any ConfigKeyProtocol] = [enabled, interval, path, mode]

    func section(_ text: String) throws -> ConfigSection {
        let ini = try INIFile(path: "x.conf", text: "[Adapter]\n" + text)
        return try ConfigSection(file: "x.conf", entries: ini.entries, keys: ConfigSectionTests.keys)
    }

    @Test func typedValues() throws {
        let s = try section("Enabled=no\nInterval=1h 30min\nPath=~/a\nPath=$HOME/b\nMode=b\n")
        #expect(s[Self.enabled] == false)
        #expect(s[Self.interval] == 5400)
        #expect(s[Self.path] == [FileSystem.home + "/a", FileSystem.home + "/b"])
        #expect(s[Self.mode] == "b")
    }

    @Test func badValuesAndUnknownKeysNameFileLineAndKey() {
        #expect(throws: ConfigError(file: "x.conf", line: 3, key: "Enabld", "unknown key")) {
            try section("Enabled=yes\nEnabld=no\n")
        }
        #expect(throws: ConfigError(file: "x.conf", line: 2, key: "Enabled", "expected yes or no, found maybe")) {
            try section("Enabled=maybe\n")
        }
        #expect(throws: ConfigError(file: "x.conf", line: 3, key: "Mode", "given twice (first on line 2); only one value is allowed")) {
            try section("Mode=a\nMode=b\n")
        }
        #expect((try? section("Interval=soon\n")) == nil)
    }
}

struct NodeURLTests {
    @Test(arguments: ["127.0.0.1", "localhost", "10.1.2.3", "172.16.0.9", "172.31.255.1", "192.168.1.20", "169.254.3.3",
                      "[::1]", "[fd12:3456::1]", "[fe80::1]", "nas", "pi.local"])
    func plainHTTPIsAllowedForLocalHosts(host: String) throws {
        #expect(try NodeURL("http://\(host):43278").scheme == "http")
    }

    @Test(arguments: ["node.example.com", "8.8.8.8", "172.32.0.1", "[2001:db8::1]", "192.169.0.1"])
    func plainHTTPIsRefusedElsewhere(host: String) {
        #expect(throws: NodeURL.Refusal.self) { try NodeURL("http://\(host)") }
    }

    @Test func httpsKeepsItsPathWithoutTrailingSlash() throws {
        let url = try NodeURL("https://Node.Example.com/hearthloom/")
        #expect(url.url("/v1/health") == "https://node.example.com/hearthloom/v1/health")
        #expect(throws: NodeURL.Refusal.self) { try NodeURL("ftp://x") }
        #expect(throws: NodeURL.Refusal.self) { try NodeURL("https://user:pw@x.example") }
    }
}

struct PairingLinkTests {
    @Test func decodesURLAndToken() throws {
        let link = try PairingLink("hearthloom://pair?url=http%3A%2F%2F192.168.1.20%3A43278&pat=abc%2Bdef")
        #expect(link.url == "http://192.168.1.20:43278")
        #expect(link.token.withValue { $0 } == "abc+def")
        #expect("\(link.token)" == "<redacted>")
    }

    @Test(arguments: ["https://x", "hearthloom://pair?pat=x", "hearthloom://pair?url=x", "hearthloom://other?url=a&pat=b", ""])
    func malformedLinksAreUsageErrors(text: String) {
        #expect(throws: AgentError.self) { try PairingLink(text) }
        #expect((try? PairingLink(text)) == nil)
    }
}
