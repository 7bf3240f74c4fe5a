import Foundation
import IngestCore
import Testing
@testable import Adapters

/// The adapter over a copy of the fixtures' vdirsyncer tree: what an edit, a deletion and a
/// damaged file queue.
struct ContactsAdapterTests {
    let root: String
    var book: String { root + "/contacts" }

    init() throws {
        root = NSTemporaryDirectory() + "contacts-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: VCardFixtureTests.fixtures + "/vdirsyncer/contacts", toPath: book)
    }

    func adapter(_ extra: String = "") throws -> ContactsAdapter {
        let file = root + "/book.conf"
        try "[Adapter]\nType=contacts\nPath=\(book)\n\(extra)".write(toFile: file, atomically: true, encoding: .utf8)
        return try ContactsAdapter(config: AdapterRegistry([ContactsAdapter.self]).loadConfig(file: file))
    }

    func scan(after sink: CollectingSink? = nil) async throws -> CollectingSink {
        let next = sink?.next() ?? CollectingSink()
        try await adapter().scan(since: next.anchor, into: next)
        return next
    }

    func summary(_ items: [Item]) -> [String] { items.map { ($0.deleted ? "-" : "") + $0.key }.sorted() }

    func edit(_ name: String, _ change: (String) -> String) throws {
        let path = book + "/" + name
        try change(try String(contentsOfFile: path, encoding: .utf8)).write(toFile: path, atomically: false, encoding: .utf8)
    }

    @Test func anEditQueuesOneItem_aDeletionItsTombstone_andAnUnchangedScanNothing() async throws {
        let first = try await scan()
        #expect(summary(first.items) == ["7d3c1a52-mum", "9e8f7a6b-brother", "c0ffee01-boss"])
        #expect(first.warnings.isEmpty)

        let unchanged = try await scan(after: first)
        #expect(unchanged.items.isEmpty)

        try edit("family/7d3c1a52-mum.vcf") { $0.replacingOccurrences(of: "maggie@example.com", with: "margaret@example.com") }
        let edited = try await scan(after: unchanged)
        #expect(summary(edited.items) == ["7d3c1a52-mum"])
        #expect(edited.items.first?.fields["emails"] == [["value": "margaret@example.com", "type": "home"]])

        // A NOTE added is not sent, so the card's version does not change and nothing is queued.
        try edit("family/7d3c1a52-mum.vcf") { $0.replacingOccurrences(of: "END:VCARD", with: "NOTE:call on sundays\r\nEND:VCARD") }
        let noted = try await scan(after: edited)
        #expect(noted.items.isEmpty)

        try FileManager.default.removeItem(atPath: book + "/family/9e8f7a6b-brother.vcf")
        let deleted = try await scan(after: noted)
        #expect(summary(deleted.items) == ["-9e8f7a6b-brother"])
        #expect(deleted.items.first?.deleted == true)
    }

    @Test func aDamagedFileWarnsWithItsNameAndLineAndDeletesNothing() async throws {
        let first = try await scan()
        try edit("work/c0ffee01-boss.vcf") { $0.replacingOccurrences(of: "END:VCARD\r\n", with: "") }
        try Data([0x00, 0xFF, 0x13, 0x37]).write(to: URL(fileURLWithPath: book + "/family/junk.vcf"))
        let damaged = try await scan(after: first)
        #expect(damaged.items.isEmpty, "a card that cannot be read is not a deleted card")
        #expect(damaged.warnings.sorted() == [
            "\(book)/family/junk.vcf: no BEGIN:VCARD in this file; not a vCard file",
            "\(book)/work/c0ffee01-boss.vcf: card at line 1 (UID c0ffee01-boss): no END:VCARD before the end of the file; skipped",
        ])
        try edit("work/c0ffee01-boss.vcf") { $0 + "END:VCARD\r\n" }
        let repaired = try await scan(after: damaged)
        #expect(repaired.items.isEmpty, "repaired to what it was: a duplicate, not sent again")
    }

    @Test func aFileNamedInPathAndExcludes() async throws {
        let single = VCardFixtureTests.fixtures + "/google-3.0.vcf"
        let file = root + "/one.conf"
        try "[Adapter]\nType=contacts\nPath=\(single)\nPath=\(book)\nExclude=*/work/*\n".write(toFile: file, atomically: true, encoding: .utf8)
        let sink = CollectingSink()
        try await ContactsAdapter(config: AdapterRegistry([ContactsAdapter.self]).loadConfig(file: file)).scan(since: Anchor(), into: sink)
        #expect(sink.items.map { $0.fields["full_name"] }.compactMap(\.?.stringValue).sorted() == ["Anna-Lena O'Brien", "Bob Smith", "Daniel Lee", "Margaret Lee"])
    }

    @Test func aConfigWithoutPathIsAnError() throws {
        let file = root + "/none.conf"
        try "[Adapter]\nType=contacts\n".write(toFile: file, atomically: true, encoding: .utf8)
        #expect(throws: ConfigError.self) { try ContactsAdapter(config: AdapterRegistry([ContactsAdapter.self]).loadConfig(file: file)) }
    }
}
