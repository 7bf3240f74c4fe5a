import Foundation
import IngestCore
import Testing

/// node.conf's `MaxQueue=`: with the node away, file adapters stop before the outbox passes it,
/// their anchors stay where they stopped, and once the node is back every item arrives once.
@Suite("a bounded outbox", .serialized)
struct MaxQueueTests {
    static let contacts = 1200

    func sandbox() throws -> AgentSandbox {
        let agent = try AgentSandbox()
        let book = agent.root + "/book"
        try FileManager.default.createDirectory(atPath: book, withIntermediateDirectories: true)
        for i in 0..<Self.contacts {
            try "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:person-\(i)\r\nFN:Person Number \(i)\r\nEMAIL:person\(i)@example.org\r\nEND:VCARD\r\n"
                .write(toFile: book + "/p\(i).vcf", atomically: false, encoding: .utf8)
        }
        try agent.write("adapters.d/a-contacts.conf", "[Adapter]\nType=contacts\nPath=\(book)\n")
        try agent.write("adapters.d/b-calendar.conf", "[Adapter]\nType=calendar\nPath=\(repoRoot)/fixtures/demo/calendar\n")
        return agent
    }

    @Test func fileAdaptersStopAtMaxQueueAndGoOnOnceTheNodeTakesIt() throws {
        let agent = try sandbox()
        let expected = try agent.run(["run", "--dry-run"], env: ["HEARTHLOOM_STATE_DIR": agent.root + "/dry"]).stdout
            .split(separator: "\n").count
        let limit = "MaxWait=1s\nMaxQueue=100K\n"
        try agent.usePairedNode("http://127.0.0.1:9", token: "tok-nobody-home", extra: limit)
        let away = try agent.run(["run"])
        #expect(away.status == 4, "the node is away: \(away.stderr)")
        let full = away.stderr.split(separator: "\n").filter { $0.contains("the outbox is full") }
        #expect(full.count == 1, "one line: \(away.stderr)")
        #expect(full.first?.contains("MaxQueue=100 KiB") == true && full.first?.contains("a-contacts stopped") == true)
        let status = try agent.status()
        let held = try #require(status["outbox_bytes"]?.intValue)
        #expect(held > 75 * 1024 && held <= 100 * 1024, "filled up to the limit and never past it: \(held)")
        #expect(try agent.outboxCount("contacts") < Self.contacts)
        #expect(try agent.run(["status"]).stdout.contains("of MaxQueue=100 KiB"))
        let doctor = try agent.run(["doctor"])
        #expect(doctor.stdout.contains("outbox: nearly full"), "\(doctor.stdout)")

        // The node is back: each run sends what is queued first, then queues more, until all is there once.
        let node = try TestNode()
        try agent.usePairedNode(node.url, token: node.token, extra: limit)
        var runs = 0, last = ProcessResult(status: -1, stdout: "", stderr: "")
        while runs < 20 && last.status != 0 {
            last = try agent.run(["run"])
            runs += 1
            #expect(last.status == 0 || last.stderr.contains("the outbox is full"), "\(last.stderr)")
        }
        #expect(last.status == 0, "\(last.stderr)")
        let items = try node.items("contacts") + node.items("calendar") + node.items("reminders")
        #expect(items.count == expected, "every item the dry run lists, at the node")
        #expect(Set(try node.items("contacts").compactMap { $0["key"]?.stringValue }).count == Self.contacts)
        #expect(try agent.outboxCount("contacts") == 0)
    }

    @Test func aBadMaxQueueNamesItsLineAndKey() throws {
        let agent = try AgentSandbox()
        try agent.write("node.conf", "[Node]\nMaxQueue=lots\n")
        let r = try agent.run(["status"])
        #expect(r.status == 3)
        #expect(r.stderr.contains("node.conf:2: MaxQueue: expected a size such as 512M, 1G or infinity, found lots"), "\(r.stderr)")
    }
}
