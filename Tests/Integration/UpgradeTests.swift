import Foundation
@testable import IngestCore
import Testing

/// Today's agent on a state directory left by the last agent of each older state schema
/// (fixtures/upgrade/schema-N, made by tools/upgrade-fixtures/build-all.sh from the old commits):
/// what was queued goes out once, what was sent is never sent again, anchors hold, and `status`
/// reads the old counts. A new schema adds its directory, and this suite runs on it unchanged.
@Suite("upgrades from every older state schema")
struct UpgradeTests {
    static let schemas: [Int] = {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: repoRoot + "/fixtures/upgrade")) ?? []
        return names.compactMap { $0.hasPrefix("schema-") ? Int($0.dropFirst(7)) : nil }.sorted()
    }()

    @Test func everyOlderSchemaHasAFixture() {
        #expect(UpgradeTests.schemas == Array(1..<Int(StateStore.schemaVersion)))
    }

    @Test(arguments: UpgradeTests.schemas)
    func todaysAgentCarriesOnWhereTheOldOneStopped(schema: Int) throws {
        let fixture = Fixture(schema: schema)
        let expected = try fixture.expected()
        let agent = try fixture.restore(expected)
        let node = try TestNode()
        try agent.usePairedNode(node.url, token: node.token)

        let before = try agent.status()
        for (name, old) in expected["adapters"]?.fields ?? [:] {
            let now = before["adapters"]?.arrayValue?.first { $0["name"]?.stringValue == name }
            #expect(now?["synced_count"] == old["synced_count"] && now?["last_synced"] == old["last_synced"], "schema \(schema): \(name) reads \(String(describing: now))")
        }
        let queued = Set((expected["queued"]?.arrayValue ?? []).compactMap(\.stringValue))
        let queuedCount = queued.count
        let outbox = before["outbox"]?.fields?.values.reduce(0) { $0 + Int($1.intValue ?? 0) }
        #expect(outbox == queuedCount, "schema \(schema): status shows \(String(describing: before["outbox"]))")

        let first = try agent.run(["run"])
        #expect(first.status == 0, "schema \(schema): \(first.stderr)")
        #expect(try atNode(node) == queued, "schema \(schema): the node got exactly what was queued, nothing already sent")
        let requests = try node.requests().count
        let second = try agent.run(["run"])
        #expect(second.status == 0 && second.stdout.contains("sent 0"), "schema \(schema): \(second.stdout) \(second.stderr)")
        #expect(try node.requests().count == requests, "schema \(schema): an unchanged tree sends nothing")
        #expect(try agent.status()["outbox"]?.fields?.isEmpty == true)
    }

    /// `endpoint key` of every item at the node, each received once.
    func atNode(_ node: TestNode) throws -> Set<String> {
        var keys = Set<String>()
        for item in try node.admin("items")["items"]?.arrayValue ?? [] {
            #expect(item["receipts"]?.intValue == 1, "\(item)")
            keys.insert("\(item["endpoint"]?.stringValue ?? "") \(item["key"]?.stringValue ?? "")")
        }
        return keys
    }

    struct Fixture {
        let schema: Int
        var dir: String { repoRoot + "/fixtures/upgrade/schema-\(schema)" }

        func expected() throws -> JSONValue {
            let bytes = try Data(contentsOf: URL(fileURLWithPath: dir + "/expected.json"))
            return try #require(JSONValue.parse(Array(bytes)))
        }

        /// The fixture back where the old agent ran (its anchors hold absolute paths), with the
        /// modification times it saw: a checkout gives every file the time of the checkout.
        func restore(_ expected: JSONValue) throws -> AgentSandbox {
            let root = try #require(expected["root"]?.stringValue)
            let files = FileManager.default
            try? files.removeItem(atPath: root)
            try files.createDirectory(atPath: root, withIntermediateDirectories: true)
            try files.copyItem(atPath: dir + "/config", toPath: root + "/config")
            try files.copyItem(atPath: dir + "/state", toPath: root + "/state")
            try files.setAttributes([.posixPermissions: 0o700], ofItemAtPath: root + "/state")
            for (name, mtime) in expected["mtimes"]?.fields ?? [:] {
                let ns = try #require(mtime.intValue)
                let time = timespec(tv_sec: Int(ns / 1_000_000_000), tv_nsec: Int(ns % 1_000_000_000))
                var times = [time, time]
                try #require(utimensat(AT_FDCWD, root + "/config/" + name, &times, 0) == 0, "\(name): errno \(errno)")
            }
            return try AgentSandbox(root: root)
        }
    }
}

extension JSONValue {
    /// The members of an object; nil for any other value.
    var fields: [String: JSONValue]? { if case .object(let members) = self { return members }; return nil }
}
