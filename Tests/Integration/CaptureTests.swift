import Foundation
import IngestCore
import Testing

@Suite("capture against the test node", .serialized)
struct CaptureTests {
    @Test func captureFromArgumentsReachesTheNodeWithTheCaptureKey() throws {
        let node = try TestNode()
        let agent = try AgentSandbox()
        let pair = try agent.run(["pair", "hearthloom://pair?url=\(node.url.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)&pat=\(node.token)"])
        agent.secrets.append(node.token)
        #expect(pair.status == 0, "\(pair.stderr)")
        let r = try agent.run(["capture", "buy", "oat", "milk"])
        #expect(r.status == 0, "\(r.stderr)")
        let items = try node.items("capture")
        #expect(items.count == 1)
        #expect(items.first?["item"]?["text"]?.stringValue == "buy oat milk")
        #expect(items.first?["item"]?["via"]?.stringValue == "args")
        let posts = try node.requests().filter { $0["path"]?.stringValue == "/v1/ingest/capture" }
        #expect(posts.map { $0["auth"]?.stringValue } == ["capture"])
        // The minted key is a secret too: it must never be printed.
        agent.secrets.append(try String(contentsOfFile: agent.config + "/capture-key", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines))
        try agent.run(["status"])
    }

    @Test func threeThousandLinesThroughAFlakyNodeArriveExactlyOnce() throws {
        let node = try TestNode(["--fail-rate", "0.2", "--reset-rate", "0.05", "--throttle-rate", "0.05", "--retry-after", "1"])
        let agent = try AgentSandbox()
        try agent.usePairedNode(node.url, token: node.token)
        let lines = (0..<3000).map { "note \($0) ✓ \"quoted\"" }
        let r = try agent.run(["capture", "--lines"], stdin: lines.joined(separator: "\n") + "\n")
        #expect(r.status == 0, "\(r.stderr)")
        // The capture command tries briefly; drains finish the job whatever the dice say.
        for _ in 0..<20 where try agent.outboxCount("capture") > 0 {
            try agent.run(["drain"])
        }
        #expect(try agent.outboxCount("capture") == 0)
        let items = try node.items("capture")
        #expect(items.count == 3000)
        #expect(items.allSatisfy { $0["accepts"]?.intValue == 1 })
        #expect(Set(items.compactMap { $0["item"]?["text"]?.stringValue }) == Set(lines))
        let statuses = try node.admin("counts")["status"]
        #expect((statuses?["500"]?.intValue ?? 0) + (statuses?["502"]?.intValue ?? 0) > 0, "the fault injection did not fire")
    }

    @Test func fiftyConcurrentCaptureProcessesGiveFiftyItems() throws {
        let node = try TestNode()
        let agent = try AgentSandbox()
        try agent.usePairedNode(node.url, token: node.token)
        try agent.run(["capture", "warm up"])   // creates the state store, as any first run does
        // A shell starts the 50 processes at once and reports any that failed.
        let script = "for i in $(seq 0 49); do \"$0\" capture \"parallel $i\" || echo \"capture $i failed\" & done; wait"
        let r = try runProcess("/bin/sh", ["-c", script, agentBinary], env: agent.env)
        #expect(!r.stdout.contains("failed"), "\(r.stdout) \(r.stderr)")
        try agent.run(["drain"])
        let texts = Set(try node.items("capture").compactMap { $0["item"]?["text"]?.stringValue })
        #expect(texts == Set((0..<50).map { "parallel \($0)" } + ["warm up"]))
    }

    @Test func captureWithNoNetworkIsKeptAndSentLater() throws {
        let agent = try AgentSandbox()
        try agent.usePairedNode("http://127.0.0.1:9", token: "t-offline")     // nothing listens on port 9
        let r = try agent.run(["capture", "offline thought"])
        #expect(r.status == 0)
        #expect(try agent.outboxCount("capture") == 1)
        let node = try TestNode(token: "t-offline")
        try agent.usePairedNode(node.url, token: "t-offline")
        #expect(try agent.run(["drain"]).status == 0)
        #expect(try node.items("capture").map { $0["item"]?["text"]?.stringValue } == ["offline thought"])
    }

    @Test func killNineDuringADrainOfTwentyThousandLosesAndDoublesNothing() throws {
        let agent = try AgentSandbox()
        try agent.usePairedNode("http://127.0.0.1:9", token: "t-kill")
        let lines = (0..<20_000).map { "item \($0)" }
        #expect(try agent.run(["capture", "--lines"], stdin: lines.joined(separator: "\n")).status == 0)
        let node = try TestNode(["--slow-ms", "40"], token: "t-kill")
        try agent.usePairedNode(node.url, token: "t-kill")
        // Each drain is killed once the node has taken one to four of its requests: while the
        // node holds a batch whose reply the agent has not read, or between two batches.
        var rng = SystemRandomNumberGenerator()
        func ingestRequests() throws -> Int64 { try node.admin("counts")["requests"]?.intValue ?? 0 }
        for _ in 0..<6 {
            let before = try ingestRequests(), taken = Int64.random(in: 1...4, using: &rng)
            let drain = try Child(agentBinary, ["drain"], env: agent.env, captureOutput: false)
            _ = try eventually(30, every: 0.02) { try ingestRequests() >= before + taken }
            drain.signal(SIGKILL)
            _ = drain.wait()
        }
        #expect(try agent.outboxCount("capture") > 0, "the kills came too late to interrupt anything")
        try node.setFaults(["slow_ms": 0])
        #expect(try agent.run(["drain"]).status == 0)
        let items = try node.items("capture")
        #expect(items.count == 20_000)
        #expect(items.allSatisfy { $0["accepts"]?.intValue == 1 })
        #expect(try agent.outboxCount("capture") == 0)
    }
}

