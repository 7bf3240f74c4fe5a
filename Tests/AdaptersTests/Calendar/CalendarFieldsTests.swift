import Foundation
import IngestCore
import Testing
@testable import Adapters

/// The exact fields of `calendar` and `reminders` items (docs/node-api.md), and bad input.
struct CalendarFieldsTests {
    @Test func anEventSendsExactlyTheNodesFields() {
        let result = RecurrenceTests.parse("""
            BEGIN:VEVENT\r\nUID:meet-1@example.com\r\nSUMMARY:Budget\\, Q3\r\nLOCATION:Room 4\\; 2nd floor\r\nSTATUS:CANCELLED\r\n\
            DESCRIPTION:private notes that must not leave\r\n\
            DTSTART;TZID=Europe/Berlin:20250506T140000\r\nDURATION:PT90M\r\n\
            ORGANIZER;CN=Ana Lima:mailto:ana@example.com\r\n\
            ATTENDEE;CN="Ben, Jr.";ROLE=REQ-PARTICIPANT;PARTSTAT=ACCEPTED:MAILTO:ben@example.com\r\n\
            ATTENDEE;ROLE=OPT-PARTICIPANT;PARTSTAT=NEEDS-ACTION:mailto:cy@example.com\r\n\
            ATTENDEE;CN=Room:urn:uuid:00000000-0000-0000-0000-000000000001\r\nEND:VEVENT\r\n
            """, header: "X-WR-CALNAME:Work\r\n")
        #expect(result.items.count == 1)
        let item = result.items[0]
        #expect(item.endpoint == .calendar)
        #expect(item.key == "meet-1@example.com")
        let expected: [String: JSONValue] = [
            "uid": "meet-1@example.com",
            "title": "Budget, Q3",
            "location": "Room 4; 2nd floor",
            "status": "cancelled",
            // 14:00 CEST + 90 minutes.
            "start": "2025-05-06T14:00:00+02:00",
            "end": "2025-05-06T15:30:00+02:00",
            "all_day": false,
            "tzid": "Europe/Berlin",
            "organizer": ["name": "Ana Lima", "email": "ana@example.com"],
            "attendees": [
                ["name": "Ben, Jr.", "email": "ben@example.com", "role": "req-participant", "partstat": "accepted"],
                ["email": "cy@example.com", "role": "opt-participant", "partstat": "needs-action"],
            ],
            "recurring": false,
            "calendar": "Work",
        ]
        #expect(item.fields == expected)
        #expect(item.version?.count == 16)
    }

    /// ROLE and PARTSTAT as written: a standard value by libical's own name for it, an X- value and
    /// a token RFC 5545 does not list (both kept by libical as text), lowercased.
    @Test func attendeeRolesAndStatusesComeAsWritten() {
        let result = RecurrenceTests.parse("""
            BEGIN:VEVENT\r\nUID:roles\r\nDTSTART:20250506T140000Z\r\n\
            ATTENDEE;ROLE=CHAIR;PARTSTAT=IN-PROCESS:mailto:fay@example.com\r\n\
            ATTENDEE;ROLE=X-GUIDE;PARTSTAT=X-MAYBE:mailto:dee@example.com\r\n\
            ATTENDEE;ROLE=FACILITATOR;PARTSTAT=DELEGATED:mailto:eve@example.com\r\n\
            ATTENDEE;CN=No Role:mailto:gus@example.com\r\nEND:VEVENT\r\n
            """)
        #expect(result.items.first?.fields["attendees"] == [
            ["email": "fay@example.com", "role": "chair", "partstat": "in-process"],
            ["email": "dee@example.com", "role": "x-guide", "partstat": "x-maybe"],
            ["email": "eve@example.com", "role": "facilitator", "partstat": "delegated"],
            ["name": "No Role", "email": "gus@example.com"],
        ])
    }

    @Test func anEditChangesTheVersionAndNothingElseDoes() {
        let event = "BEGIN:VEVENT\r\nUID:v\r\nDTSTART:20250506T140000Z\r\nSUMMARY:%@\r\nDTSTAMP:%@\r\nEND:VEVENT\r\n"
        func version(_ title: String, _ stamp: String) -> String? {
            RecurrenceTests.parse(event.replacingOccurrences(of: "SUMMARY:%@", with: "SUMMARY:\(title)").replacingOccurrences(of: "%@", with: stamp)).items.first?.version
        }
        #expect(version("a", "20250101T000000Z") == version("a", "20250202T000000Z"), "a field not sent must not change the version")
        #expect(version("a", "20250101T000000Z") != version("b", "20250101T000000Z"))
    }

    @Test func aToDoIsAReminder() {
        let result = RecurrenceTests.parse("""
            BEGIN:VTODO\r\nUID:todo-1\r\nSUMMARY:File taxes\r\nDUE;TZID=America/New_York:20250415T170000\r\nPRIORITY:1\r\nSTATUS:NEEDS-ACTION\r\nEND:VTODO\r\n\
            BEGIN:VTODO\r\nUID:todo-2\r\nSUMMARY:Call mum\r\nDUE;VALUE=DATE:20250301\r\nCOMPLETED:20250228T183000Z\r\nSTATUS:COMPLETED\r\nPRIORITY:0\r\nEND:VTODO\r\n\
            BEGIN:VTODO\r\nUID:todo-3\r\nSUMMARY:Someday\r\nEND:VTODO\r\n
            """)
        let byKey = Dictionary(uniqueKeysWithValues: result.items.map { ($0.key, $0) })
        #expect(result.items.allSatisfy { $0.endpoint == .reminders })
        // 17:00 EDT (after 9 March) = UTC-4.
        #expect(byKey["todo-1"]?.fields == ["title": "File taxes", "due": "2025-04-15T17:00:00-04:00", "priority": 1, "status": "needs-action", "list": "test"])
        #expect(byKey["todo-2"]?.fields == ["title": "Call mum", "due": "2025-03-01", "completed_at": "2025-02-28T18:30:00Z", "status": "completed", "list": "test"])
        #expect(byKey["todo-3"]?.fields == ["title": "Someday", "list": "test"])
    }

    @Test func badComponentsAreSkippedWithTheirLineOrUIDAndTheRestGoesOn() {
        var text = Array("""
            BEGIN:VCALENDAR\r\nVERSION:2.0\r\n\
            BEGIN:VEVENT\r\nDTSTART:20250101T100000Z\r\nSUMMARY:no uid\r\nEND:VEVENT\r\n\
            BEGIN:VEVENT\r\nUID:bad-rule\r\nDTSTART:20250101T100000Z\r\nRRULE:FREQ=WEEKLY;COUNT=banana\r\nEND:VEVENT\r\n\
            BEGIN:VEVENT\r\nUID:bad-zone\r\nDTSTART;TZID=Mars/Olympus_Mons:20250101T100000\r\nEND:VEVENT\r\n\
            BEGIN:VEVENT\r\nUID:impossible\r\nDTSTART:20250101T100000Z\r\nRRULE:FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=30\r\nEND:VEVENT\r\n\
            BEGIN:VEVENT\r\nUID:bad-bytes\r\nDTSTART:20250101T100000Z\r\nSUMMARY:caf\u{1}\r\nEND:VEVENT\r\n\
            BEGIN:VEVENT\r\nUID:endless\r\nDTSTART:19700101T000000Z\r\nRRULE:FREQ=SECONDLY\r\nEND:VEVENT\r\n\
            BEGIN:VEVENT\r\nUID:good\r\nDTSTART:20250101T100000Z\r\nSUMMARY:fine\r\nEND:VEVENT\r\n\
            END:VCALENDAR\r\n
            """.utf8)
        text[text.firstIndex(of: 1)!] = 0xFF                     // not UTF-8
        let limits = RecurrenceLimits(windowEnd: 1_800_000_000, maxPerSeries: 5000)
        guard let (items, warnings, _, _) = CalendarAdapter.parse(path: "/cal/mixed.ics", bytes: text, namedDirectly: true, limits: limits, lookAhead: 0).whole else {
            Issue.record("the whole file failed"); return
        }
        #expect(Set(items.map(\.key)).subtracting(items.filter { $0.key.hasPrefix("endless/") }.map(\.key)) == ["good"])
        #expect(items.filter { $0.key.hasPrefix("endless/") }.count == 5000)
        // An endless rule is capped, not run to the window: expanded for 250 000 instances at most; the cap keeps the last 5000 of them: seconds
        // 245 000 (2 days 20:03:20) to 249 999 (2 days 21:26:39).
        #expect(items.contains { $0.key == "endless/19700103T200320Z" } && items.contains { $0.key == "endless/19700103T212639Z" }, "seconds 245 000…249 999")
        #expect(warnings.count == 5, "\(warnings)")
        #expect(warnings.contains { $0.hasPrefix("line 3: no UID") })
        #expect(warnings.contains { $0.hasPrefix("line 7, UID bad-rule: bad RRULE") })
        #expect(warnings.contains { $0.hasPrefix("line 12, UID bad-zone: unknown TZID Mars/Olympus_Mons") })
        #expect(warnings.contains { $0.hasPrefix("line 16, UID impossible: RRULE that no date satisfies") })
        #expect(warnings.contains { $0.hasPrefix("line 21, UID bad-bytes: invalid UTF-8 in SUMMARY") })
    }

    @Test func aFileThatIsNotICalendarFailsAsAWhole() {
        let limits = RecurrenceLimits(windowEnd: 1_800_000_000, maxPerSeries: 5000)
        for text in ["", "hello", "BEGIN:VCARD\r\nFN:x\r\nEND:VCARD\r\n", "BEGIN:VEVENT\r\nUID:x\r\nEND:VEVENT\r\n"] {
            guard let reason = CalendarAdapter.parse(path: "/cal/x.ics", bytes: Array(text.utf8), namedDirectly: true, limits: limits, lookAhead: 0).failure else {
                Issue.record("\(text.debugDescription) was taken as a calendar"); continue
            }
            #expect(reason.contains("not an iCalendar file"))
        }
    }
}
