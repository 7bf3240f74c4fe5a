import Foundation
import IngestCore
import Testing

@Suite("contacts adapter against the test node", .serialized)
struct ContactsTests {
    /// A sandbox paired with `node` whose `book` adapter reads a copy of the fixtures' vdirsyncer
    /// tree plus two multi-card exports (2.1 with a PHOTO and a NOTE, Google's 3.0).
    func bookSandbox(_ node: TestNode) throws -> (AgentSandbox, String) {
        let agent = try AgentSandbox()
        let book = agent.root + "/vdirsyncer/contacts"
        let fm = FileManager.default
        try fm.createDirectory(atPath: agent.root + "/vdirsyncer", withIntermediateDirectories: true)
        try fm.copyItem(atPath: repoRoot + "/fixtures/contacts/vdirsyncer/contacts", toPath: book)
        try fm.createDirectory(atPath: book + "/exports", withIntermediateDirectories: true)
        for name in ["android-2.1.vcf", "google-3.0.vcf"] {
            try fm.copyItem(atPath: repoRoot + "/fixtures/contacts/" + name, toPath: book + "/exports/" + name)
        }
        try agent.usePairedNode(node.url, token: node.token)
        try agent.write("adapters.d/book.conf", "[Adapter]\nType=contacts\nPath=\(book)\n")
        return (agent, book)
    }

    func counts(_ node: TestNode) throws -> (accepted: Int64, receipts: Int64, live: Int64) {
        let c = try node.admin("counts")["endpoints"]?["contacts"]
        return (c?["accepted"]?.intValue ?? -1, c?["receipts"]?.intValue ?? -1, c?["live"]?.intValue ?? -1)
    }

    func stored(_ node: TestNode, key: String) throws -> JSONValue? {
        try node.items("contacts").first { $0["key"]?.stringValue == key }
    }

    @Test func anEditSendsExactlyOneItem_aDeletedFileItsTombstone_andNoPhotoOrNoteEverLeaves() throws {
        let node = try TestNode()
        let (agent, book) = try bookSandbox(node)
        let first = try agent.run(["run"])
        #expect(first.status == 0, "\(first.stderr)")
        let start = try counts(node)
        #expect(start.accepted == 9 && start.receipts == 9 && start.live == 9, "3 vdir cards + 4 (2.1) + 2 (Google)")
        for item in try node.items("contacts") {
            let json = String(decoding: (item["item"] ?? .null).encoded, as: UTF8.self).lowercased()
            for leak in ["photo", "note", "/9j/", "coffee", "harbour\""] {
                #expect(!json.contains(leak), "\(leak) reached the node: \(json)")
            }
        }

        // Unchanged: nothing is sent at all.
        #expect(try agent.run(["run"]).status == 0)
        #expect(try counts(node) == start)

        // One card edited in the vdir: exactly one item reaches the node, and it is accepted.
        let mum = book + "/family/7d3c1a52-mum.vcf"
        let text = try String(contentsOfFile: mum, encoding: .utf8)
        try text.replacingOccurrences(of: "+1 415 555 0111", with: "+1 415 555 0199").write(toFile: mum, atomically: true, encoding: .utf8)
        #expect(try agent.run(["run"]).status == 0)
        let edited = try counts(node)
        #expect(edited.accepted == start.accepted + 1 && edited.receipts == start.receipts + 1, "only the edited card is sent")
        #expect(try stored(node, key: "7d3c1a52-mum")?["item"]?["phones"] == [["value": "+1 415 555 0199", "type": "cell"]])

        // A file deleted: its card's tombstone arrives, and nothing else.
        try FileManager.default.removeItem(atPath: book + "/family/9e8f7a6b-brother.vcf")
        #expect(try agent.run(["run"]).status == 0)
        let deleted = try counts(node)
        #expect(deleted.accepted == edited.accepted + 1 && deleted.receipts == edited.receipts + 1 && deleted.live == start.live - 1)
        #expect(try stored(node, key: "9e8f7a6b-brother")?["deleted"] == true)

        // A card removed from a multi-card export: its tombstone only.
        let google = book + "/exports/google-3.0.vcf"
        let export = try String(contentsOfFile: google, encoding: .utf8)
        let bob = try #require(export.range(of: "BEGIN:VCARD\nVERSION:3.0\nFN:Bob Smith"))
        try String(export[..<bob.lowerBound]).write(toFile: google, atomically: true, encoding: .utf8)
        #expect(try agent.run(["run"]).status == 0)
        let removed = try counts(node)
        #expect(removed.accepted == deleted.accepted + 1 && removed.receipts == deleted.receipts + 1 && removed.live == deleted.live - 1)
        let tombstoned = try node.items("contacts").filter { $0["deleted"] == true }.compactMap { $0["key"]?.stringValue }
        #expect(tombstoned.count == 2 && tombstoned.contains("9e8f7a6b-brother"))
    }

    @Test func badFilesWarnWithFileAndLineAndTheRunGoesOn() throws {
        let node = try TestNode()
        let (agent, book) = try bookSandbox(node)
        for name in ["broken.vcf", "junk.vcf"] {
            try FileManager.default.copyItem(atPath: repoRoot + "/fixtures/contacts/" + name, toPath: book + "/exports/" + name)
        }
        let r = try agent.run(["run"])
        #expect(r.status == 0, "\(r.stderr)")
        let warnings = r.stderr.split(separator: "\n").filter { $0.contains(book + "/exports/") }
        #expect(warnings.count == 5, "\(warnings)")
        #expect(warnings.contains { $0.contains("broken.vcf: card at line 10 (UID broken-utf8): FN on line 12 is not valid UTF-8; skipped") })
        #expect(warnings.contains { $0.contains("junk.vcf: no BEGIN:VCARD in this file") })
        #expect(try counts(node).accepted == 10, "the good card among the broken ones is sent too")
    }
}
