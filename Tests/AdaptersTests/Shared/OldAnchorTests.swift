import Foundation
import IngestCore
import Testing
@testable import Adapters
#if canImport(Glibc)
import Glibc
#endif

/// Anchors as the adapters wrote them before the file ledger, byte for byte (the layouts are spelt
/// out here, not made by today's codecs): over an unchanged library, an upgrade must read them,
/// open nothing and queue nothing.
struct OldAnchorTests {
    let root: String
    init() throws {
        root = NSTemporaryDirectory() + "old-anchor-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: root + "/lib", withIntermediateDirectories: true)
    }

    /// `size\tmtime\tinode` as the old codecs interpolated them.
    func statFields(_ path: String) -> String {
        var st = stat()
        #expect(stat(path, &st) == 0)
        return "\(st.st_size)\t\(Int64(st.st_mtim.tv_sec) * 1_000_000_000 + Int64(st.st_mtim.tv_nsec))\t\(st.st_ino)"
    }

    func config(_ type: String, _ body: String) throws -> AdapterConfig {
        let file = root + "/\(type).conf"
        try "[Adapter]\nType=\(type)\n\(body)".write(toFile: file, atomically: true, encoding: .utf8)
        let all: [any DeviceAdapter.Type] = [ContactsAdapter.self, PhotosAdapter.self, HealthAdapter.self, CalendarAdapter.self]
        return try AdapterRegistry(all).loadConfig(file: file)
    }

    /// Scans from an anchor of one old entry; checks that nothing is queued and nothing warned of.
    func scan(_ adapter: some DeviceAdapter, from key: String, _ old: String) async throws -> CollectingSink {
        let sink = CollectingSink(anchor: Anchor([key: Data(old.utf8)]))
        try await adapter.scan(since: sink.anchor, into: sink)
        #expect(sink.items.isEmpty)
        #expect(sink.warnings.isEmpty, "no file may be opened")
        return sink
    }

    @Test func aTrackedFileRecordOfTheOldLayoutIsReadAndNothingIsResent() async throws {
        let path = root + "/lib/book.vcf"
        try "BEGIN:VCARD\r\nVERSION:3.0\r\nFN:Alice\r\nUID:alice\r\nEND:VCARD\r\n".write(toFile: path, atomically: false, encoding: .utf8)
        let first = CollectingSink()
        try await ContactsAdapter(config: config("contacts", "Path=\(root)/lib\n")).scan(since: Anchor(), into: first)
        let item = try #require(first.items.first)

        // FileRecord.encoded before the ledger: a string of the head line, then one line per item.
        let old = "v1\t\(statFields(path))\t0123456789abcdef0123456789abcdef\t-\ncontacts\t\(item.key)\t\(item.version ?? "-")\n"
        let sink = try await scan(ContactsAdapter(config: config("contacts", "Path=\(root)/lib\n")), from: "f:" + path, old)
        #expect(sink.anchor.entries == ["f:" + path: Data(old.utf8)], "an unchanged file's record is not even rewritten")
    }

    @Test func aPhotoFolderAnchorOfTheOldLayoutIsReadAndNothingIsResent() async throws {
        let path = root + "/lib/IMG_1.jpg"
        try "not a JPEG: opening it would warn".write(toFile: path, atomically: false, encoding: .utf8)
        // FolderAnchor.encoded before the ledger; the digest is stale, so the folder's records are decoded.
        let old = "v1 0000\nIMG_1.jpg\t\(statFields(path))\t-\tphoto:k\n"
        let sink = try await scan(PhotosAdapter(config: config("photos", "Path=\(root)/lib\n")), from: "d:" + root + "/lib", old)
        let kept = try #require(sink.anchor["d:" + root + "/lib"].flatMap(FolderAnchor.init))
        #expect(kept.records == FolderAnchor(Data(old.utf8))?.records)
        #expect(kept.records["IMG_1.jpg"]?.key == "photo:k")
    }

    @Test func aHealthFileRecordOfTheOldLayoutIsReadAndTheFileIsNotOpened() async throws {
        let path = root + "/lib/export.xml"
        try "<HealthData>".write(toFile: path, atomically: false, encoding: .utf8)
        // HealthFileRecord.encoded before the ledger: one line, no newline.
        let old = "v1\t\(statFields(path))\t0123456789abcdef0123456789abcdef\tapple-health"
        let sink = try await scan(HealthAdapter(config: config("health", "Path=\(root)/lib\n")), from: "f:" + path, old)
        #expect(sink.anchor.entries == ["f:" + path: Data(old.utf8)], "a file read again would have its record rewritten")
        #expect(FileRecord(Data(old.utf8))?.exportFormat == "apple-health")
    }

    /// A calendar's record as the ledger wrote it before ``ItemTable`` (one line per occurrence,
    /// built from a dictionary and sorted when encoded), its lines spelt out here in reverse order:
    /// a file read again after the upgrade resends nothing, and a key it lost is one tombstone.
    @Test func aCalendarRecordOfTheDictionaryLayoutIsReadAndOnlyALostKeyIsSent() async throws {
        let path = root + "/lib/cal.ics"
        try """
            BEGIN:VCALENDAR\r\nVERSION:2.0\r\nBEGIN:VEVENT\r\nUID:weekly\r\nSUMMARY:Choir\r\nDTSTART:20240102T180000Z\r\n\
            DTEND:20240102T190000Z\r\nRRULE:FREQ=WEEKLY;COUNT=3\r\nEND:VEVENT\r\nBEGIN:VTODO\r\nUID:t%1\r\nSUMMARY:Bins\r\n\
            END:VTODO\r\nEND:VCALENDAR\r\n
            """.write(toFile: path, atomically: false, encoding: .utf8)
        let first = CollectingSink()
        try await CalendarAdapter(config: config("calendar", "Path=\(root)/lib\n")).scan(since: Anchor(), into: first)
        #expect(first.items.count == 4)
        let lines = first.items.map { "\($0.endpoint.rawValue)\t\($0.key.replacing("%", with: "%25"))\t\($0.version ?? "-")\n" }.sorted()
        // A stamp that does not match makes the file be read and its items compared with the record's.
        let head = "v1\t1\t1\t1\t0123456789abcdef0123456789abcdef\t-\n"
        let old = head + lines.reversed().joined() + "calendar\tweekly/20230101T180000Z\tffffffffffffffff\n"
        let sink = CollectingSink(anchor: Anchor(["f:" + path: Data(old.utf8)]))
        try await CalendarAdapter(config: config("calendar", "Path=\(root)/lib\n")).scan(since: sink.anchor, into: sink)
        #expect(sink.items.map(\.key) == ["weekly/20230101T180000Z"] && sink.items.allSatisfy(\.deleted))
        let stored = try #require(sink.anchor["f:" + path])
        #expect(String(String(decoding: stored, as: UTF8.self).split(separator: "\n", maxSplits: 1)[1]) == lines.joined(),
                "the record holds the same lines, sorted, as the dictionary layout wrote them")
    }
}
