import Foundation
import IngestCore
import Testing

@Suite("calendar adapter against the test node", .serialized)
struct CalendarTests {
    /// A sandbox whose `cal` adapter reads a copy of the vdirsyncer fixture, paired with `node`.
    func vdirSandbox(_ node: TestNode) throws -> (AgentSandbox, String) {
        let agent = try AgentSandbox()
        let calendars = agent.root + "/calendars"
        try FileManager.default.copyItem(atPath: repoRoot + "/fixtures/calendar/vdirsyncer/calendars", toPath: calendars)
        try agent.write("adapters.d/cal.conf", "[Adapter]\nType=calendar\nPath=\(calendars)\n")
        try agent.usePairedNode(node.url, token: node.token)
        return (agent, calendars)
    }

    func counts(_ node: TestNode, _ endpoint: String) throws -> (accepted: Int64, receipts: Int64, live: Int64) {
        let c = try node.admin("counts")["endpoints"]?[endpoint]
        return (c?["accepted"]?.intValue ?? -1, c?["receipts"]?.intValue ?? -1, c?["live"]?.intValue ?? -1)
    }

    @Test func editingOneEventSendsExactlyOneItem_aResyncIsAllDuplicates_aDeletedFileSendsItsTombstones() throws {
        let node = try TestNode()
        let (agent, calendars) = try vdirSandbox(node)
        let first = try agent.run(["run"])
        #expect(first.status == 0, "\(first.stderr)")
        // standup 3 + review 3 + offsite 1 + yoga 2 occurrences; one to-do.
        #expect(try counts(node, "calendar") == (9, 9, 9))
        #expect(try counts(node, "reminders") == (1, 1, 1))
        let stored = try node.items("calendar")
        #expect(stored.allSatisfy { $0["source"] == "linux-calendar" })
        let yoga = try #require(stored.first { $0["key"] == "c9e2-yoga/20251027T170000Z" }?["item"])
        #expect(yoga["start"] == "2025-10-27T18:00:00+01:00")
        #expect(yoga["calendar"] == "personal")

        // Edit one event: exactly one item goes out, and it is accepted as an update.
        let offsite = calendars + "/work/7e11-offsite.ics"
        let text = try String(contentsOfFile: offsite, encoding: .utf8)
        try text.replacingOccurrences(of: "SUMMARY:Team offsite", with: "SUMMARY:Team offsite (moved)")
            .replacingOccurrences(of: "20250918T170000", with: "20250918T180000").write(toFile: offsite, atomically: true, encoding: .utf8)
        #expect(try agent.run(["run"]).status == 0)
        #expect(try counts(node, "calendar") == (10, 10, 9), "one item sent and accepted, nothing else sent")
        #expect(try counts(node, "reminders") == (1, 1, 1))
        let edited = try #require(try node.items("calendar").first { $0["key"] == "7e11-offsite" })
        #expect(edited["accepts"] == 2)
        let expected: JSONValue = ["uid": "7e11-offsite", "title": "Team offsite (moved)", "location": "Lakeside Inn",
                                   "start": "2025-09-18T09:00:00+02:00", "end": "2025-09-18T18:00:00+02:00", "all_day": false,
                                   "tzid": "Europe/Berlin", "attendees": [], "recurring": false, "calendar": "Work",
                                   "key": "7e11-offsite", "version": edited["version"] ?? .null]
        #expect(edited["item"] == expected)

        // A resync sends everything again: all duplicates.
        #expect(try agent.run(["resync", "cal"]).status == 0)
        #expect(try counts(node, "calendar") == (10, 19, 9))
        #expect(try counts(node, "reminders") == (1, 2, 1))

        // Delete a file: its two occurrences' tombstones arrive, nothing else.
        try FileManager.default.removeItem(atPath: calendars + "/personal/c9e2-yoga.ics")
        #expect(try agent.run(["run"]).status == 0)
        #expect(try counts(node, "calendar") == (12, 21, 7))
        let gone = try node.items("calendar").filter { ($0["key"]?.stringValue ?? "").hasPrefix("c9e2-yoga/") }
        #expect(gone.count == 2 && gone.allSatisfy { $0["deleted"] == true })
        #expect(try counts(node, "reminders") == (1, 2, 1))
    }

    @Test func badFilesWarnAndTheRunGoesOn() throws {
        let agent = try AgentSandbox()
        try agent.write("adapters.d/cal.conf", "[Adapter]\nType=calendar\nPath=\(repoRoot)/fixtures/calendar/bad\n")
        let r = try agent.run(["run", "--dry-run"])
        #expect(r.status == 0, "\(r.stderr)")
        let keys = r.stdout.split(separator: "\n").compactMap { JSONValue.parse(Array($0.utf8))?["item"]?["key"]?.stringValue }
        #expect(keys.filter { !$0.hasPrefix("endless-secondly/") } == ["still-fine"])
        #expect(keys.count == 5001)
        for problem in ["not-a-calendar.ics: not an iCalendar file", "mixed.ics: line 3: no UID", "UID bad-rrule: bad RRULE",
                        "UID unknown-tzid: unknown TZID Atlantis/Capital", "UID bad-utf8: invalid UTF-8 in SUMMARY"] {
            #expect(r.stderr.split(separator: "\n").filter { $0.contains(problem) }.count == 1, "\(problem): \(r.stderr)")
        }
    }

    /// libical shares its built-in zones between threads: its zone list was published before it was
    /// filled, and a zone's first load freed its name under a lookup on another thread. Each fresh
    /// process reaches those first uses again, so many short runs over many zones are what show it
    /// (before the fix about one run in twenty died of SIGSEGV).
    @Test func filesInManyZonesParsedAtOnceNeverCrashAFreshRun() throws {
        let agent = try AgentSandbox()
        let zones = ["Europe/Berlin", "America/New_York", "Asia/Tokyo", "Australia/Sydney", "Africa/Cairo", "America/Anchorage",
                     "Asia/Kolkata", "Europe/Lisbon", "Pacific/Auckland", "America/Sao_Paulo", "Asia/Dubai", "Europe/Moscow",
                     "America/Chicago", "America/Denver", "America/Los_Angeles", "Asia/Shanghai", "Asia/Singapore", "Europe/London",
                     "Europe/Paris", "Africa/Johannesburg", "America/Mexico_City", "Asia/Jakarta", "Asia/Seoul", "Europe/Istanbul",
                     // Names kept only as links, which libical appends to its list on first lookup.
                     "US/Eastern", "US/Pacific", "Asia/Calcutta", "Asia/Saigon", "Europe/Kiev", "America/Buenos_Aires", "Japan", "GB"]
        let folder = agent.root + "/zones"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for (i, zone) in zones.enumerated() {
            let lines = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//test//zones//EN", "BEGIN:VEVENT", "UID:z\(i)",
                         "DTSTAMP:20250101T000000Z", "DTSTART;TZID=\(zone):20250301T090000", "DTEND;TZID=\(zone):20250301T100000",
                         "RRULE:FREQ=WEEKLY;COUNT=3", "SUMMARY:\(zone)", "END:VEVENT", "END:VCALENDAR", ""]
            try lines.joined(separator: "\r\n").write(toFile: "\(folder)/z\(i).ics", atomically: false, encoding: .utf8)
        }
        try agent.write("adapters.d/cal.conf", "[Adapter]\nType=calendar\nPath=\(folder)\n")
        var first: [String]?
        for attempt in 0..<60 {
            let r = try agent.run(["run", "--dry-run", "--state-dir", agent.root + "/state-\(attempt)"])
            try #require(r.status == 0, "run \(attempt): exit \(r.status) \(r.stderr)")
            let lines = r.stdout.split(separator: "\n").map(String.init).sorted()
            #expect(lines == (first ?? lines), "run \(attempt) printed other items")
            first = first ?? lines
        }
        let items = try #require(first).compactMap { JSONValue.parse(Array($0.utf8))?["item"] }
        #expect(items.count == zones.count * 3)
        let calcutta = items.first { $0["key"] == "z26/20250301T033000Z" }
        #expect(calcutta?["start"] == "2025-03-01T09:00:00+05:30" && calcutta?["tzid"] == "Asia/Calcutta")
        #expect(items.first { $0["key"] == "z31/20250301T090000Z" }?["start"] == "2025-03-01T09:00:00+00:00")
    }
}
