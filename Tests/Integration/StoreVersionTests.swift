import Foundation
import IngestCore
import Testing

/// A state store written by a newer agent (a downgrade, or two versions sharing a home): refused
/// with one line naming both schema versions, exit 3, and not a byte of the state dir changed.
@Suite("state store versions")
struct StoreVersionTests {
    @Test func aStoreFromANewerAgentIsRefusedAndLeftAsItIs() throws {
        let agent = try AgentSandbox()
        #expect(try agent.run(["capture", "kept for the newer agent"]).status == 0)
        let set = try runProcess("/usr/bin/sqlite3", [agent.state + "/state.db", "PRAGMA user_version = 9"])
        try #require(set.status == 0, "\(set.stderr)")
        let before = try snapshot(agent.state)
        for command in [["capture", "more"], ["run"], ["status"], ["drain"]] {
            let r = try agent.run(command)
            #expect(r.status == 3, "\(command): \(r.stderr)")
            let lines = r.stderr.split(separator: "\n")
            #expect(lines.count == 1 && lines[0].contains("state schema 9; this \(AgentVersion.string) knows up to 4"), "\(command): \(r.stderr)")
        }
        #expect(try snapshot(agent.state) == before, "nothing in the state dir changed")
    }

    /// Every file of `dir` with its bytes and modification time.
    func snapshot(_ dir: String) throws -> [String: String] {
        var out: [String: String] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: dir) {
            let path = dir + "/" + name
            let attributes = try FileManager.default.attributesOfItem(atPath: path)
            let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
            out[name] = "\(Digest.sha256Hex([UInt8](bytes))) \(attributes[.modificationDate].map { "\($0)" } ?? "")"
        }
        return out
    }
}
