import Foundation
import IngestCore
import Testing
@testable import Adapters

/// The adapter over the hand-written fixtures and temporary trees: collection names, the
/// vdirsyncer layout, the window moving with the clock, and files it must not read.
struct CalendarAdapterTests {
    static let repo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

    let root: String
    init() throws {
        root = NSTemporaryDirectory() + "calendar-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
    }

    func adapter(_ config: String) throws -> CalendarAdapter {
        let file = root + "/cal.conf"
        try "[Adapter]\nType=calendar\n\(config)".write(toFile: file, atomically: true, encoding: .utf8)
        let loaded = try AdapterRegistry([CalendarAdapter.self]).loadConfig(file: file)
        return try CalendarAdapter(config: loaded)
    }

    func scan(_ adapter: CalendarAdapter, now: String, after sink: CollectingSink? = nil) async throws -> CollectingSink {
        let next = sink?.next() ?? CollectingSink()
        try await adapter.scan(since: next.anchor, into: next, now: RecurrenceTests.instant(now))
        return next
    }

    @Test func theFixturesGiveTheHandComputedOccurrencesInTheirCollections() async throws {
        let sink = try await scan(try adapter("Path=\(Self.repo)/fixtures/calendar\n"), now: "2026-01-01T00:00:00Z")
        var got: [String: String] = [:]
        for item in sink.items where !item.key.hasPrefix("endless-secondly/") {
            let when = item.fields["start"]?.stringValue ?? item.fields["due"]?.stringValue ?? "-"
            got[item.key] = "\(item.fields["calendar"]?.stringValue ?? item.fields["list"]?.stringValue ?? "?") \(when)"
        }
        #expect(got == [
            // Mondays 19:30 from 3 March (CET = UTC+1, CEST = UTC+2 from 30 March), 17 March
            // excluded, Saturday 22 March 11:00 added, 31 March moved to 1 April 18:00.
            "choir-7f3a@example.org/20250303T183000Z": "Home 2025-03-03T19:30:00+01:00",
            "choir-7f3a@example.org/20250310T183000Z": "Home 2025-03-10T19:30:00+01:00",
            "choir-7f3a@example.org/20250322T100000Z": "Home 2025-03-22T11:00:00+01:00",
            "choir-7f3a@example.org/20250324T183000Z": "Home 2025-03-24T19:30:00+01:00",
            "choir-7f3a@example.org/20250331T173000Z": "Home 2025-04-01T18:00:00+02:00",
            "choir-7f3a@example.org/20250407T173000Z": "Home 2025-04-07T19:30:00+02:00",
            "dentist-2025@example.org": "Home 2025-05-12T07:30:00Z",
            // Yearly from 14 June 2025; 14 June 2026 is after the window's end (1 April 2026).
            "anniversary@example.org/20250614": "Home 2025-06-14",
            "alarm-clock@example.org/20250601T070000": "Home 2025-06-01T07:00:00",
            "alarm-clock@example.org/20250602T070000": "Home 2025-06-02T07:00:00",
            "alarm-clock@example.org/20250603T070000": "Home 2025-06-03T07:00:00",
            "todo-passport@example.org": "Home 2025-07-01",
            // Floating times in a calendar whose X-WR-TIMEZONE is New York: 09:00 EST = 14:00Z,
            // then EDT from 9 March = 13:00Z.
            "3hs7t0l9b1@google.com/20250302T140000Z": "Family 2025-03-02T09:00:00-05:00",
            "3hs7t0l9b1@google.com/20250309T130000Z": "Family 2025-03-09T09:00:00-04:00",
            "3hs7t0l9b1@google.com/20250316T130000Z": "Family 2025-03-16T09:00:00-04:00",
            "9kd0a1b2c3@google.com": "Family 2025-11-01T18:00:00-04:00",
            // vdirsyncer: `displayname` names the work collection; personal has none, so its folder does.
            // Standup: Mondays 09:30 New York, 27 Oct EDT = 13:30Z, then EST = 14:30Z, UNTIL 10 Nov 14:30Z inclusive.
            "1b0e7c54-standup/20251027T133000Z": "Work 2025-10-27T09:30:00-04:00",
            "1b0e7c54-standup/20251103T143000Z": "Work 2025-11-03T09:30:00-05:00",
            "1b0e7c54-standup/20251110T143000Z": "Work 2025-11-10T09:30:00-05:00",
            // Last weekday: Mon 31 March, Wed 30 April, Fri 30 May (31 May is a Saturday); 15:00 CEST = 13:00Z.
            "5d2f9a10-review/20250331T130000Z": "Work 2025-03-31T15:00:00+02:00",
            "5d2f9a10-review/20250430T130000Z": "Work 2025-04-30T15:00:00+02:00",
            "5d2f9a10-review/20250530T130000Z": "Work 2025-05-30T15:00:00+02:00",
            "7e11-offsite": "Work 2025-09-18T09:00:00+02:00",
            "a41c-groceries": "personal 2025-04-05T12:00:00+02:00",
            // 18:00 CEST = 16:00Z on 20 October, 18:00 CET = 17:00Z on 27 October.
            "c9e2-yoga/20251020T160000Z": "personal 2025-10-20T18:00:00+02:00",
            "c9e2-yoga/20251027T170000Z": "personal 2025-10-27T18:00:00+01:00",
            // bad/mixed.ics: the one good event of a file of bad ones; no X-WR-CALNAME, several UIDs: the file's name.
            "still-fine": "mixed 2025-01-01T10:00:00Z",
        ])
        #expect(sink.items.filter { $0.key.hasPrefix("endless-secondly/") }.count == 5000)

        let flight = sink.items.first { $0.key == "9kd0a1b2c3@google.com" }
        #expect(flight?.fields["end"] == "2025-11-02T08:00:00+01:00", "DTEND keeps its own zone: Berlin, on CET since 26 October")
        #expect(sink.items.first { $0.key == "dentist-2025@example.org" }?.fields["status"] == "cancelled")
        #expect(sink.items.first { $0.key == "a41c-groceries" }?.fields["completed_at"] == "2025-04-05T10:15:00Z")

        let warnings = sink.warnings.joined(separator: "\n")
        #expect(sink.warnings.count == 5, "\(warnings)")
        for expected in ["bad/not-a-calendar.ics: not an iCalendar file", "bad/mixed.ics: line 3: no UID",
                         "bad/mixed.ics: line 7, UID bad-rrule: bad RRULE", "bad/mixed.ics: line 12, UID unknown-tzid: unknown TZID Atlantis/Capital",
                         "bad/mixed.ics: line 16, UID bad-utf8: invalid UTF-8 in SUMMARY"] {
            #expect(warnings.contains(expected), "missing warning: \(expected)")
        }
    }

    @Test func anUnchangedFileIsReadAgainOnlyWhenTheWindowReachesItsNextOccurrence() async throws {
        try FileManager.default.createDirectory(atPath: root + "/vdir", withIntermediateDirectories: true)
        try "BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nUID:daily\r\nDTSTART:20250101T100000Z\r\nRRULE:FREQ=DAILY\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
            .write(toFile: root + "/vdir/daily.ics", atomically: true, encoding: .utf8)
        let calendar = try adapter("Path=\(root)/vdir\nLookAhead=5d\n")
        // Window ends 15 Jan 00:00Z: 1…14 January. 15 January 10:00Z enters it on 10 January 10:00Z.
        let first = try await scan(calendar, now: "2025-01-10T00:00:00Z")
        #expect(first.items.count == 14)
        let early = try await scan(calendar, now: "2025-01-10T09:59:00Z", after: first)
        #expect(early.items.isEmpty)
        let later = try await scan(calendar, now: "2025-01-11T00:00:00Z", after: early)
        #expect(later.items.map(\.key) == ["daily/20250115T100000Z"], "only the occurrence the window reached; nothing dropped out")
    }

    /// A file read in pieces is streamed: its items are recorded as each piece is read, named
    /// from a later calendar's X-WR-CALNAME as a whole read names them, and an edit of one event
    /// sends exactly that event; a series past the window makes the file read again later.
    @Test func aStreamedFileNamesItsItemsAsAWholeReadDoesAndAnEditSendsOneItem() async throws {
        func text(title: String) -> String {
            let events = (0..<450).map { "BEGIN:VEVENT\r\nUID:e\($0)\r\nSUMMARY:\($0 == 7 ? title : "x")\r\nDTSTART:20250101T100000Z\r\nEND:VEVENT\r\n" }
            let series = "BEGIN:VEVENT\r\nUID:weekly\r\nDTSTART:20250101T090000Z\r\nRRULE:FREQ=WEEKLY;COUNT=3\r\nEND:VEVENT\r\n"
            return "BEGIN:VCALENDAR\r\n" + events.joined() + "END:VCALENDAR\r\nBEGIN:VCALENDAR\r\nX-WR-CALNAME:Work\r\n" + series + "END:VCALENDAR\r\n"
        }
        try FileManager.default.createDirectory(atPath: root + "/export", withIntermediateDirectories: true)
        try text(title: "old").write(toFile: root + "/export/big.ics", atomically: true, encoding: .utf8)
        let calendar = try adapter("Path=\(root)/export\nLookAhead=1d\n")
        // The window ends 9 Jan 00:00Z: 1 and 8 January of the series; 15 January enters it on 14 January 09:00Z.
        let first = try await scan(calendar, now: "2025-01-08T00:00:00Z")
        #expect(first.items.count == 452)
        #expect(Set(first.items.map { $0.fields["calendar"]?.stringValue ?? "-" }) == ["Work"])
        #expect(first.warnings.isEmpty)
        let unchanged = try await scan(calendar, now: "2025-01-08T00:00:00Z", after: first)
        #expect(unchanged.items.isEmpty)
        try text(title: "new").write(toFile: root + "/export/big.ics", atomically: true, encoding: .utf8)
        let edited = try await scan(calendar, now: "2025-01-14T10:00:00Z", after: unchanged)
        #expect(edited.items.map(\.key).sorted() == ["e7", "weekly/20250115T090000Z"])
        #expect(edited.items.first { $0.key == "e7" }?.fields["title"] == "new")
    }

    @Test func aFileOverTheSizeLimitIsSkippedWithoutReadingIt() async throws {
        let path = root + "/huge.ics"
        #expect(FileManager.default.createFile(atPath: path, contents: Data("BEGIN:VCALENDAR\r\n".utf8)))
        #expect(truncate(path, 65 << 20) == 0)                // sparse: 65 MiB without writing them
        let sink = try await scan(try adapter("Path=\(path)\n"), now: "2025-01-01T00:00:00Z")
        #expect(sink.items.isEmpty)
        #expect(sink.warnings == ["\(path): 65 MiB is over the 64 MiB limit; skipped"])
    }

    @Test func badLimitsAreConfigErrors() throws {
        #expect(throws: ConfigError.self) { try adapter("Path=/x\nMaxOccurrences=0\n") }
        #expect(throws: ConfigError.self) { try adapter("LookAhead=90d\n") }
    }

    @Test func aCappedSeriesMovesWithTheWindowAndWhatFallsBehindTheCapIsNotDeleted() async throws {
        try "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nBEGIN:VEVENT\r\nUID:daily\r\nDTSTART:20250101T100000Z\r\nRRULE:FREQ=DAILY\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
            .write(toFile: root + "/daily.ics", atomically: true, encoding: .utf8)
        let calendar = try adapter("Path=\(root)/daily.ics\nMaxOccurrences=3\nLookAhead=5d\n")
        let first = try await scan(calendar, now: "2025-01-10T00:00:00Z")
        #expect(first.items.map(\.key) == ["daily/20250112T100000Z", "daily/20250113T100000Z", "daily/20250114T100000Z"])
        // A day later 15 January is in the window and 12 January falls behind the cap: only the
        // new occurrence goes out, and no tombstone for the old one.
        let second = try await scan(calendar, now: "2025-01-11T00:00:00Z", after: first)
        #expect(second.items.map(\.key) == ["daily/20250115T100000Z"])
        #expect(second.items.allSatisfy { !$0.deleted })
        // Deleting the file does tombstone every occurrence that was sent.
        try FileManager.default.removeItem(atPath: root + "/daily.ics")
        let gone = try await scan(calendar, now: "2025-01-11T00:00:00Z", after: second)
        #expect(gone.items.filter(\.deleted).map(\.key).sorted() == ["daily/20250112T100000Z", "daily/20250113T100000Z", "daily/20250114T100000Z", "daily/20250115T100000Z"])
    }
}
