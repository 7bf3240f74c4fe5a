import Foundation
import IngestCore
import Testing

/// A real ENOSPC: the state dir is a 1 MiB tmpfs that an import fills. Nothing queued before is
/// lost or damaged, the run says "disk is full" naming the state database, and once there is
/// room again the next run carries on and every item reaches the node once. Mounting needs root,
/// as CI and the developers' machines here run the suite.
@Suite("a full disk", .serialized)
struct DiskFullTests {
    @Test func aFullStateDiskLosesNothingAndTheNextRunCarriesOn() throws {
        let agent = try AgentSandbox()
        try FileManager.default.createDirectory(atPath: agent.state, withIntermediateDirectories: true)
        let mounted = try runProcess("/usr/bin/mount", ["-t", "tmpfs", "-o", "size=1M", "tmpfs", agent.state])
        try #require(mounted.status == 0, "mounting a tmpfs needs root: \(mounted.stderr)")
        defer { _ = try? runProcess("/usr/bin/umount", [agent.state]) }
        let book = agent.root + "/book"
        try FileManager.default.createDirectory(atPath: book, withIntermediateDirectories: true)
        for i in 0..<3000 {
            try "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:person-\(i)\r\nFN:Person Number \(i)\r\nEMAIL:person\(i)@example.org\r\nEND:VCARD\r\n"
                .write(toFile: book + "/p\(i).vcf", atomically: false, encoding: .utf8)
        }
        try agent.usePairedNode("http://127.0.0.1:9", token: "tok-nobody-home", extra: "MaxWait=1s\n")
        for i in 1...3 { #expect(try agent.run(["capture", "note \(i)"]).status == 0) }
        try agent.write("adapters.d/contacts.conf", "[Adapter]\nType=contacts\nPath=\(book)\n")

        let full = try agent.run(["run"])
        #expect(full.status != 0)
        let line = full.stderr.split(separator: "\n").first { $0.contains("disk is full") }
        #expect(line?.contains(agent.state + "/state.db") == true, "\(full.stderr)")
        #expect(try agent.outboxCount("capture") == 3, "the captures queued before are all there")
        #expect(try agent.run(["doctor"]).stdout.contains("passes quick_check"))

        let grown = try runProcess("/usr/bin/mount", ["-o", "remount,size=64M", agent.state])
        try #require(grown.status == 0, "\(grown.stderr)")
        let node = try TestNode()
        try agent.usePairedNode(node.url, token: node.token)
        let again = try agent.run(["run"])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(try node.items("capture").count == 3)
        #expect(try node.items("contacts").count == 3000)
        #expect(try node.items("contacts").allSatisfy { $0["receipts"]?.intValue == 1 }, "nothing was sent twice")
    }
}
