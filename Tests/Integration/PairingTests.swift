import Foundation
import IngestCore
import Testing

func pairingLink(_ url: String, _ token: String) -> String {
    "hearthloom://pair?url=\(url.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)&pat=\(token)"
}

@Suite("pairing and configuration", .serialized)
struct PairingTests {
    @Test func pairingKeepsURLTokenAndCaptureKeyWithPrivateModes() throws {
        let node = try TestNode()
        let agent = try AgentSandbox()
        agent.secrets.append(node.token)
        let r = try agent.run(["pair", pairingLink(node.url, node.token)])
        #expect(r.status == 0, "\(r.stderr)")
        let conf = try String(contentsOfFile: agent.config + "/node.conf", encoding: .utf8)
        #expect(conf.contains("URL=\(node.url)"))
        for file in ["token", "capture-key"] {
            let mode = try FileManager.default.attributesOfItem(atPath: agent.config + "/" + file)[.posixPermissions] as? Int
            #expect(mode == 0o600, "\(file) has mode \(String(mode ?? 0, radix: 8))")
        }
        #expect(try String(contentsOfFile: agent.config + "/token", encoding: .utf8) == node.token + "\n")
        let paths = try node.requests().compactMap { $0["path"]?.stringValue }
        #expect(paths == ["/v1/health", "/v1/whoami", "/v1/keys"])
    }

    @Test func aRefusedTokenExits4AndKeepsNothing() throws {
        let node = try TestNode()
        let agent = try AgentSandbox()
        agent.secrets.append("not-the-token-xyz")
        let r = try agent.run(["pair", pairingLink(node.url, "not-the-token-xyz")])
        #expect(r.status == 4)
        #expect(r.stderr.contains("refused the token"))
        #expect(!FileManager.default.fileExists(atPath: agent.config + "/node.conf"))
        #expect(!FileManager.default.fileExists(atPath: agent.config + "/token"))
    }

    @Test func linkAndURLChecksGiveTheirExitCodes() throws {
        let agent = try AgentSandbox()
        #expect(try agent.run(["pair", "https://node.example.com"]).status == 2)
        #expect(try agent.run(["pair", "hearthloom://pair?url=https%3A%2F%2Fx.example"]).status == 2)    // no pat
        let plain = try agent.run(["pair", pairingLink("http://node.example.com", "tok-plain-http")])
        #expect(plain.status == 3)
        #expect(plain.stderr.contains("plain http is allowed only for local addresses"))
        #expect(try agent.run(["pair", pairingLink("http://127.0.0.1:9", "tok-nobody-home")]).status == 4)
    }

    @Test func mintRefusedMeansCapturesUseTheDeviceToken() throws {
        let node = try TestNode(["--mint-forbidden"])
        let agent = try AgentSandbox()
        agent.secrets.append(node.token)
        #expect(try agent.run(["pair", pairingLink(node.url, node.token)]).status == 0)
        #expect(!FileManager.default.fileExists(atPath: agent.config + "/capture-key"))
        try agent.run(["capture", "device token please"])
        let post = try #require(try node.requests().first { $0["path"]?.stringValue == "/v1/ingest/capture" })
        #expect(post["auth"]?.stringValue == "device")
        #expect(try node.items("capture").count == 1)
    }

    @Test func aTokenFileOthersCanReadIsRefused() throws {
        let node = try TestNode()
        let agent = try AgentSandbox()
        agent.secrets.append(node.token)
        try agent.write("given-token", node.token, mode: 0o644)
        let r = try agent.run(["pair", "--url", node.url, "--token-file", agent.config + "/given-token"])
        #expect(r.status == 3)
        #expect(r.stderr.contains("readable by others"))
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: agent.config + "/given-token")
        #expect(try agent.run(["pair", "--url", node.url, "--token-file", agent.config + "/given-token"]).status == 0)
        // The stored token file, loosened later, is refused at run time too.
        try FileManager.default.setAttributes([.posixPermissions: 0o640], ofItemAtPath: agent.config + "/token")
        let run = try agent.run(["drain"])
        #expect(run.status == 3)
        #expect(run.stderr.contains("/token"))
    }

    @Test func systemdCredentialsDirectoryWins() throws {
        let node = try TestNode()
        let agent = try AgentSandbox()
        try agent.usePairedNode(node.url, token: "stale-token-in-config")
        let creds = agent.root + "/creds"
        try FileManager.default.createDirectory(atPath: creds, withIntermediateDirectories: true)
        try node.token.write(toFile: creds + "/hearthloom.token", atomically: true, encoding: .utf8)
        agent.secrets.append(node.token)
        try agent.run(["capture", "via credentials"])
        #expect(try agent.run(["drain"], env: ["CREDENTIALS_DIRECTORY": creds]).status == 0)
        #expect(try node.items("capture").count == 1)
    }

    @Test func httpsNodeIsVerifiedWithTheConfiguredCA() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("tls-\(UUID().uuidString.prefix(6))").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let made = try runProcess("/usr/bin/openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
                                                       "-keyout", dir + "/key.pem", "-out", dir + "/cert.pem", "-subj", "/CN=localhost",
                                                       "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"])
        try #require(made.status == 0, "\(made.stderr)")
        let node = try TestNode(["--tls-cert", dir + "/cert.pem", "--tls-key", dir + "/key.pem"], caFile: dir + "/cert.pem")
        let url = node.url
        let agent = try AgentSandbox()
        agent.secrets.append(node.token)
        // Without the CA the certificate is not trusted, and nothing is kept.
        let untrusted = try agent.run(["pair", pairingLink(url, node.token)])
        #expect(untrusted.status == 4)
        #expect(!FileManager.default.fileExists(atPath: agent.config + "/token"))
        try agent.write("node.conf", "[Node]\nCAFile=\(dir)/cert.pem\n", mode: 0o600)
        let trusted = try agent.run(["pair", pairingLink(url, node.token)])
        #expect(trusted.status == 0, "\(trusted.stderr)")
        #expect(try String(contentsOfFile: agent.config + "/node.conf", encoding: .utf8).contains("CAFile=\(dir)/cert.pem"))
        try agent.run(["capture", "over tls"])
        #expect(try node.items("capture").count == 1)
    }

    @Test func configErrorsNameFileLineAndKey() throws {
        let agent = try AgentSandbox()
        try agent.write("node.conf", "[Node]\n# comment\nURL=https://node.example.com\nTokn=~/x\n")
        let r = try agent.run(["status"])
        #expect(r.status == 3)
        #expect(r.stderr.contains("\(agent.config)/node.conf:4: Tokn: unknown key"))
        try agent.write("node.conf", "")
        try agent.write("adapters.d/books.conf", "[Adapter]\nType=bookshelf\n")
        let bad = try agent.run(["run"])
        #expect(bad.status == 3)
        #expect(bad.stderr.contains("books.conf:2: Type: unknown adapter type bookshelf"))
        #expect(bad.stderr.split(separator: "\n").count == 1, "one line, got: \(bad.stderr)")
    }

    @Test func aDamagedStateDatabaseIsOneLineAndExit3() throws {
        let agent = try AgentSandbox()
        try FileManager.default.createDirectory(atPath: agent.state, withIntermediateDirectories: true)
        try Data(repeating: 0x42, count: 8192).write(to: URL(fileURLWithPath: agent.state + "/state.db"))
        let r = try agent.run(["capture", "hello"])
        #expect(r.status == 3)
        #expect(r.stderr.contains("state.db"))
        #expect(r.stderr.split(separator: "\n").count == 1, "\(r.stderr)")
    }

    @Test func embeddedLocalNodeAppliesTheContractAndStatusShowsIt() throws {
        let agent = try AgentSandbox()
        try queue(agent, endpoint: .photos, source: "linux-photos", count: 4)
        let first = try agent.run(["drain", "--json"])
        #expect(first.status == 0)
        #expect(JSONValue.parse(Array(first.stdout.utf8))?["accepted"]?.intValue == 4)
        // The same keys and versions again are duplicates; a tombstone is accepted once.
        try queue(agent, endpoint: .photos, source: "linux-photos", count: 4)
        try agent.store().commit(adapter: "photos-test", source: "linux-photos", items: [.tombstone(endpoint: .photos, key: "p-0")], anchor: .none)
        let second = try JSONValue.parse(Array(agent.run(["drain", "--json"]).stdout.utf8))
        #expect(second?["duplicates"]?.intValue == 4)
        #expect(second?["accepted"]?.intValue == 1)
        let status = try agent.status()
        #expect(status["local_node"]?["photos"]?["live"]?.intValue == 3)
        #expect(status["local_node"]?["photos"]?["deleted"]?.intValue == 1)
    }
}
