import Foundation
import IngestCore
import Testing

/// Puts items for a non-capture endpoint in the outbox, as an adapter's scan would.
func queue(_ agent: AgentSandbox, endpoint: Endpoint, source: String, count: Int, prefix: String = "p") throws {
    let items = (0..<count).map { i in
        Item(endpoint: endpoint, key: "\(prefix)-\(i)", fields: [
            "taken_at": "2026-05-01T12:00:00Z", "lat": .double(52.52 + Double(i) * 1e-4), "lon": 13.405,
            "file": ["name": .string("IMG_\(i).jpg"), "size": 1234],
        ])
    }
    try agent.store().commit(adapter: "photos-test", source: source, items: items, anchor: .none)
}

@Suite("the gate against the test node's replies", .serialized)
struct GateTests {
    @Test func a401KeepsEverythingAndExits4_andAFreshTokenDelivers() throws {
        let node = try TestNode()
        let agent = try AgentSandbox()
        try agent.usePairedNode(node.url, token: node.token)
        try queue(agent, endpoint: .photos, source: "linux-photos", count: 30)
        try node.admin("revoke", ["token": .string(node.token)])
        let r = try agent.run(["drain"])
        #expect(r.status == 4)
        #expect(r.stderr.contains("pair again") || r.stdout.contains("pair again"))
        #expect(try agent.outboxCount("photos") == 30)
        try node.admin("tokens", ["token": .string(node.token)])
        #expect(try agent.run(["drain"]).status == 0)
        #expect(try node.items("photos").count == 30)
        #expect(try agent.outboxCount("photos") == 0)
    }

    @Test func a404ForCaptureKeepsCapturesQueuedWhileOtherEndpointsDrain() throws {
        let node = try TestNode(["--missing", "capture"])
        let agent = try AgentSandbox()
        try agent.usePairedNode(node.url, token: node.token)
        #expect(try agent.run(["capture", "kept for a newer node"]).status == 0)
        try queue(agent, endpoint: .photos, source: "linux-photos", count: 1500)
        let r = try agent.run(["drain"])
        #expect(r.status == 4)
        #expect(r.stdout.contains("node too old for capture"))
        #expect(try node.items("photos").count == 1500)
        #expect(try agent.outboxCount("capture") == 1)
        #expect(try agent.status()["notes"]?["capture"]?.stringValue?.contains("too old") == true)
        // The node is upgraded: the capture goes out and the note clears.
        try node.setFaults(["missing": []])
        #expect(try agent.run(["drain"]).status == 0)
        #expect(try node.items("capture").count == 1)
        #expect(try agent.status()["notes"]?["capture"] == nil)
    }

    @Test func a400IsBisectedSoOnlyTheBadItemsAreDeadLettered() throws {
        let node = try TestNode(["--reject-substring", "POISON"])
        let agent = try AgentSandbox()
        try agent.usePairedNode(node.url, token: node.token)
        let lines = (0..<500).map { $0 % 97 == 5 ? "POISON \($0)" : "fine \($0)" }
        // Queued as `capture --lines` queues them, without its opportunistic send: this drain does the bisecting.
        try agent.store().commit(adapter: "capture", source: "linux-capture", items: CaptureQueue.items(lines, via: "stdin"), anchor: .none)
        let r = try agent.run(["drain"])
        let poisoned = lines.filter { $0.hasPrefix("POISON") }
        try #require(poisoned.count == 6, "the fixture poisons 6 of 500 lines")
        #expect(r.status == 1, "dead-lettered items make the exit code 1 (README, ExitCode.someFailed): \(r.stdout) \(r.stderr)")
        let delivered = Set(try node.items("capture").compactMap { $0["item"]?["text"]?.stringValue })
        #expect(delivered == Set(lines.filter { !$0.hasPrefix("POISON") }))
        let status = try agent.status()
        #expect(status["dead_letters"]?["capture"]?.intValue == Int64(poisoned.count))
        #expect(status["outbox"]?["capture"] == nil)
    }

    @Test func anItemLargerThanTheNodeTakesIsDeadLetteredAndTheRestFlow() throws {
        let node = try TestNode()
        let agent = try AgentSandbox()
        try agent.usePairedNode(node.url, token: node.token)
        let huge = String(repeating: "x", count: 1_100_000)
        try agent.store().commit(adapter: "capture", source: "linux-capture", items: CaptureQueue.items(["small one", huge, "small two"], via: "stdin"), anchor: .none)
        let r = try agent.run(["drain"])
        #expect(r.status == 1, "dead-lettered items make the exit code 1")
        #expect(Set(try node.items("capture").compactMap { $0["item"]?["text"]?.stringValue }) == ["small one", "small two"])
        #expect(try agent.status()["dead_letters"]?["capture"]?.intValue == 1)
    }

    @Test func aLongRetryAfterEndsTheRunAndTheNextRunDoesNotAskEarly() throws {
        let node = try TestNode(["--throttle-rate", "1", "--retry-after", "3600"])
        let agent = try AgentSandbox()
        try agent.usePairedNode(node.url, token: node.token)
        try queue(agent, endpoint: .photos, source: "linux-photos", count: 5)
        let first = try agent.run(["drain"])
        #expect(first.status == 4)
        let asked = try node.requests().count
        let second = try agent.run(["drain"])
        #expect(second.status == 0)
        #expect(try node.requests().count == asked, "the second run contacted a node that asked for an hour's pause")
        #expect(try agent.status()["retry_not_before"]?.stringValue != nil)
        #expect(try agent.outboxCount("photos") == 5)
    }

    @Test func shortRetryAfterIsHonouredAndDelivers() throws {
        let node = try TestNode(["--throttle-rate", "0.5", "--retry-after", "1"])
        let agent = try AgentSandbox()
        try agent.usePairedNode(node.url, token: node.token)
        try queue(agent, endpoint: .photos, source: "linux-photos", count: 3000)
        #expect(try agent.run(["drain"]).status == 0)
        #expect(try node.items("photos").count == 3000)
    }

    @Test func drainingIsFairAcrossSources() throws {
        let node = try TestNode()
        let agent = try AgentSandbox()
        try agent.usePairedNode(node.url, token: node.token)
        try queue(agent, endpoint: .photos, source: "linux-photos", count: 5000, prefix: "big")
        // Contacts have their own fields, which the test node checks.
        try agent.store().commit(adapter: "contacts-test", source: "linux-contacts", items: (0..<10).map {
            Item(endpoint: .contacts, key: "small-\($0)", fields: ["full_name": .string("P \($0)"), "emails": [], "phones": [], "addresses": []])
        }, anchor: .none)
        #expect(try agent.run(["drain"]).status == 0)
        let order = try node.requests().compactMap { $0["path"]?.stringValue }.filter { $0.hasPrefix("/v1/ingest/") }
        let firstContacts = try #require(order.firstIndex(of: "/v1/ingest/contacts"))
        #expect(firstContacts <= 1, "contacts waited behind \(firstContacts) photo batches: \(order)")
    }

    @Test func extraHeadersReachTheNodeAndNoSecretIsPrinted() throws {
        let node = try TestNode()
        let agent = try AgentSandbox()
        try agent.usePairedNode(node.url, token: node.token, extra: "Header=CF-Access-Client-Id: abc.access\nHeader=CF-Access-Client-Secret: s3cr3t-header\n")
        agent.secrets.append("s3cr3t-header")
        try agent.run(["capture", "with headers"])
        try agent.run(["-v", "-v", "drain"])
        try agent.run(["status"])
        let post = try #require(try node.requests().first { $0["path"]?.stringValue == "/v1/ingest/capture" })
        #expect(post["headers"]?["cf-access-client-id"]?.stringValue == "abc.access")
        #expect(post["headers"]?["cf-access-client-secret"]?.stringValue == "s3cr3t-header")
        #expect(post["headers"]?["authorization"]?.stringValue == "Bearer \(node.token)")
    }

    @Test func anUnreachableNodeExits4AndKeepsEverything() throws {
        let agent = try AgentSandbox()
        try agent.usePairedNode("http://127.0.0.1:9", token: "unreachable-node-token")
        try queue(agent, endpoint: .photos, source: "linux-photos", count: 3)
        let r = try agent.run(["drain"])
        #expect(r.status == 4)
        #expect(r.stdout.contains("unreachable"))
        #expect(try agent.outboxCount("photos") == 3)
    }
}
