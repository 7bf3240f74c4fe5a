import Foundation
import IngestCore
import Testing

/// `run` with no node paired hands each commit of a scan straight to the embedded local node
/// (no trip through the outbox); these check that the contract holds on that path.
@Suite("a run straight to the embedded local node", .serialized)
struct EmbeddedNodeTests {
    /// A sandbox whose `pics` adapter scans `count` generated JPEGs (500 per folder).
    func treeSandbox(_ count: Int) throws -> AgentSandbox {
        let agent = try AgentSandbox()
        let tree = agent.root + "/tree"
        let made = try runProcess("/usr/bin/python3", [repoRoot + "/bench/make-photo-tree.py", String(count), tree, "--pad-kb", "0"])
        try #require(made.status == 0, "make-photo-tree.py failed: \(made.stderr)")
        try agent.write("adapters.d/pics.conf", "[Adapter]\nType=photos\nPath=\(tree)\n")
        return agent
    }

    /// key → version of every live item the embedded node holds.
    func held(_ agent: AgentSandbox) throws -> [String: String] {
        guard let node = LocalNode(readOnlyAt: agent.state + "/local-node.db") else { return [:] }
        return try node.db.withConnection { (c) throws(SQLiteError) -> [String: String] in
            var out: [String: String] = [:]
            try c.query("SELECT key, version FROM items WHERE deleted = 0") { r in out[r.text(0) ?? ""] = r.text(1) ?? ""; return true }
            return out
        }
    }

    /// How many live items the node holds; 0 while a run is still creating it.
    func heldCount(_ agent: AgentSandbox) -> Int {
        (try? LocalNode(readOnlyAt: agent.state + "/local-node.db")?.holdings().reduce(0) { $0 + $1.live }) ?? 0
    }

    /// key → version of what a dry run from fresh state would send.
    func wanted(_ agent: AgentSandbox) throws -> [String: String] {
        let fresh = try AgentSandbox()
        try FileManager.default.copyItem(atPath: agent.config + "/adapters.d/pics.conf", toPath: fresh.config + "/adapters.d/pics.conf")
        let r = try fresh.run(["run", "--dry-run"])
        try #require(r.status == 0, "\(r.stderr)")
        var out: [String: String] = [:]
        for line in r.stdout.split(separator: "\n") {
            let item = JSONValue.parse(Array(line.utf8))?["item"]
            if let key = item?["key"]?.stringValue { out[key] = item?["version"]?.stringValue ?? "" }
        }
        return out
    }

    @Test func killNineDuringARunLosesAndDoublesNothing() throws {
        let agent = try treeSandbox(6_000)
        let want = try wanted(agent)
        try #require(want.count == 6_000)
        // Each run is killed as soon as the node holds more than before it started: mid-scan,
        // between a commit reaching the node and its anchor, or just after.
        var killedMidRun = 0
        for _ in 0..<3 {
            let before = heldCount(agent)
            let run = try Child(agentBinary, ["run"], env: agent.env, captureOutput: false)
            _ = eventually(60, every: 0.002) { heldCount(agent) != before || before >= want.count }
            run.signal(SIGKILL)
            if run.wait().status == 128 + SIGKILL, heldCount(agent) < want.count { killedMidRun += 1 }
        }
        #expect(killedMidRun > 0, "every kill came after the run had sent everything")
        let last = try agent.run(["run", "--json"])
        #expect(last.status == 0, "\(last.stderr)")
        #expect(try held(agent) == want, "the node holds exactly the items a fresh dry run shows, with their versions")
        #expect(try agent.outboxCount("photos") == 0)
        let again = try JSONValue.parse(Array(agent.run(["run", "--json"]).stdout.utf8))
        #expect(again?["adapters"]?.arrayValue?.first?["queued"]?.intValue == 0)
    }

    @Test func anOlderVersionStillQueuedReachesTheNodeFirst() throws {
        let agent = try treeSandbox(600)
        let want = try wanted(agent)
        let key = try #require(want.keys.sorted().first)
        // An older version of one photo, queued by an earlier run that could not deliver it.
        let older = Item(endpoint: .photos, key: key, fields: ["lat": .double(1), "lon": .double(2), "taken_at": .string("2001-01-01T00:00:00Z")])
        try agent.store().commit(adapter: "pics", source: "linux-photos", items: [older], anchor: .none)
        let r = try JSONValue.parse(Array(agent.run(["run", "--json"]).stdout.utf8))
        #expect(r?["accepted"]?.intValue == 601)
        #expect(try held(agent) == want, "the scan's version, sent after the queued one, is what the node keeps")
        #expect(try agent.outboxCount("photos") == 0)
    }
}
