import Foundation
import IngestCore
import Testing
@testable import Adapters

/// Occurrences against instants worked out by hand (the comments show the arithmetic), not
/// from the code: DST changes in Europe/Berlin (2025-03-30 02:00 CET→CEST, 2025-10-26 03:00
/// CEST→CET) and America/New_York (2025-03-09 02:00 EST→EDT, 2025-11-02 02:00 EDT→EST).
struct RecurrenceTests {
    /// The items of one calendar text, read as a file named directly in `Path=`.
    static func parse(_ body: String, header: String = "", now: String = "2026-01-01T00:00:00Z", lookAheadDays: Int64 = 90, max: Int = 5000) -> (items: [Item], warnings: [String], refreshAfter: Date?) {
        let text = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\n\(header)\(body)END:VCALENDAR\r\n"
        let limits = RecurrenceLimits(windowEnd: Int64(instant(now).timeIntervalSince1970) + lookAheadDays * 86_400, maxPerSeries: max)
        let parse = CalendarAdapter.parse(path: "/cal/test.ics", bytes: Array(text.utf8), namedDirectly: true, limits: limits, lookAhead: lookAheadDays * 86_400)
        guard let whole = parse.whole else { Issue.record("failed: \(parse.failure ?? "")"); return ([], [], nil) }
        return (whole.items, whole.warnings, whole.refreshAfter)
    }

    static func instant(_ text: String) -> Date { try! Date(text, strategy: .iso8601) }

    /// `key start` per calendar item, in start order.
    static func starts(_ items: [Item]) -> [String] {
        items.filter { $0.endpoint == .calendar }
            .map { "\($0.key) \($0.fields["start"]?.stringValue ?? "-")" }
            .sorted { ($0.split(separator: " ")[1]) < ($1.split(separator: " ")[1]) }
    }

    @Test func weeklyInBerlinKeepsItsWallTimeAcrossBothChanges() {
        let spring = Self.parse("""
            BEGIN:VEVENT\r\nUID:spring\r\nDTSTART;TZID=Europe/Berlin:20250320T100000\r\nDTEND;TZID=Europe/Berlin:20250320T110000\r\nRRULE:FREQ=WEEKLY;COUNT=4\r\nSUMMARY:standup\r\nEND:VEVENT\r\n
            """)
        // 10:00 CET = 09:00Z until 30 March, then 10:00 CEST = 08:00Z.
        #expect(Self.starts(spring.items) == [
            "spring/20250320T090000Z 2025-03-20T10:00:00+01:00",
            "spring/20250327T090000Z 2025-03-27T10:00:00+01:00",
            "spring/20250403T080000Z 2025-04-03T10:00:00+02:00",
            "spring/20250410T080000Z 2025-04-10T10:00:00+02:00",
        ])
        #expect(spring.items.map { $0.fields["end"]?.stringValue } == ["2025-03-20T11:00:00+01:00", "2025-03-27T11:00:00+01:00", "2025-04-03T11:00:00+02:00", "2025-04-10T11:00:00+02:00"])
        let autumn = Self.parse("""
            BEGIN:VEVENT\r\nUID:autumn\r\nDTSTART;TZID=Europe/Berlin:20251016T100000\r\nRRULE:FREQ=WEEKLY;COUNT=3\r\nEND:VEVENT\r\n
            """)
        // 10:00 CEST = 08:00Z until 26 October, then 10:00 CET = 09:00Z.
        #expect(Self.starts(autumn.items) == [
            "autumn/20251016T080000Z 2025-10-16T10:00:00+02:00",
            "autumn/20251023T080000Z 2025-10-23T10:00:00+02:00",
            "autumn/20251030T090000Z 2025-10-30T10:00:00+01:00",
        ])
    }

    @Test func weeklyInNewYorkKeepsItsWallTimeAcrossMarchAndNovember() {
        let result = Self.parse("""
            BEGIN:VEVENT\r\nUID:march\r\nDTSTART;TZID=America/New_York:20250302T090000\r\nRRULE:FREQ=WEEKLY;COUNT=3\r\nEND:VEVENT\r\n\
            BEGIN:VEVENT\r\nUID:november\r\nDTSTART;TZID=America/New_York:20251026T090000\r\nRRULE:FREQ=WEEKLY;COUNT=3\r\nEND:VEVENT\r\n
            """)
        // 09:00 EST = 14:00Z, 09:00 EDT = 13:00Z.
        #expect(Self.starts(result.items) == [
            "march/20250302T140000Z 2025-03-02T09:00:00-05:00",
            "march/20250309T130000Z 2025-03-09T09:00:00-04:00",
            "march/20250316T130000Z 2025-03-16T09:00:00-04:00",
            "november/20251026T130000Z 2025-10-26T09:00:00-04:00",
            "november/20251102T140000Z 2025-11-02T09:00:00-05:00",
            "november/20251109T140000Z 2025-11-09T09:00:00-05:00",
        ])
        #expect(result.items.allSatisfy { $0.fields["tzid"] == "America/New_York" && $0.fields["recurring"] == true })
    }

    @Test func monthlyByDayAndBySetPos() {
        let result = Self.parse("""
            BEGIN:VEVENT\r\nUID:last-weekday\r\nDTSTART;TZID=Europe/Berlin:20250131T170000\r\nRRULE:FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1;COUNT=4\r\nEND:VEVENT\r\n\
            BEGIN:VEVENT\r\nUID:second-tuesday\r\nDTSTART;TZID=America/New_York:20250114T180000\r\nRRULE:FREQ=MONTHLY;BYDAY=2TU;COUNT=3\r\nEND:VEVENT\r\n
            """)
        // 2025-01-01 is a Wednesday. Last weekdays: Fri 31 Jan, Fri 28 Feb, Mon 31 Mar, Wed 30 Apr;
        // 17:00 CET = 16:00Z, 17:00 CEST = 15:00Z. Second Tuesdays: 14 Jan, 11 Feb, 11 Mar;
        // 18:00 EST = 23:00Z, and 11 March is after New York's change: 18:00 EDT = 22:00Z.
        #expect(Self.starts(result.items) == [
            "second-tuesday/20250114T230000Z 2025-01-14T18:00:00-05:00",
            "last-weekday/20250131T160000Z 2025-01-31T17:00:00+01:00",
            "second-tuesday/20250211T230000Z 2025-02-11T18:00:00-05:00",
            "last-weekday/20250228T160000Z 2025-02-28T17:00:00+01:00",
            "second-tuesday/20250311T220000Z 2025-03-11T18:00:00-04:00",
            "last-weekday/20250331T150000Z 2025-03-31T17:00:00+02:00",
            "last-weekday/20250430T150000Z 2025-04-30T17:00:00+02:00",
        ])
    }

    @Test func untilInUTCEndsSeriesWrittenInOtherZones() {
        let result = Self.parse("""
            BEGIN:VEVENT\r\nUID:ny\r\nDTSTART;TZID=America/New_York:20250303T090000\r\nRRULE:FREQ=DAILY;UNTIL=20250305T133000Z\r\nEND:VEVENT\r\n\
            BEGIN:VEVENT\r\nUID:berlin\r\nDTSTART;TZID=Europe/Berlin:20250328T100000\r\nRRULE:FREQ=DAILY;UNTIL=20250331T083000Z\r\nEND:VEVENT\r\n
            """)
        // New York 09:00 EST = 14:00Z: 5 March at 14:00Z is after 13:30Z (though 09:00 < 13:30 as wall times).
        // Berlin: 28, 29 March 10:00 CET = 09:00Z; 30, 31 March 10:00 CEST = 08:00Z, and 08:00Z ≤ 08:30Z.
        #expect(Self.starts(result.items) == [
            "ny/20250303T140000Z 2025-03-03T09:00:00-05:00",
            "ny/20250304T140000Z 2025-03-04T09:00:00-05:00",
            "berlin/20250328T090000Z 2025-03-28T10:00:00+01:00",
            "berlin/20250329T090000Z 2025-03-29T10:00:00+01:00",
            "berlin/20250330T080000Z 2025-03-30T10:00:00+02:00",
            "berlin/20250331T080000Z 2025-03-31T10:00:00+02:00",
        ])
    }

    @Test func allDayEventsAreDatesKeyedByDate() {
        let result = Self.parse("""
            BEGIN:VEVENT\r\nUID:birthday\r\nDTSTART;VALUE=DATE:20250228\r\nRRULE:FREQ=YEARLY;COUNT=3\r\nSUMMARY:Ada\r\nEND:VEVENT\r\n\
            BEGIN:VEVENT\r\nUID:holiday\r\nDTSTART;VALUE=DATE:20251224\r\nDTEND;VALUE=DATE:20251227\r\nEND:VEVENT\r\n
            """)
        #expect(Self.starts(result.items) == [
            "birthday/20250228 2025-02-28",
            "holiday 2025-12-24",
            "birthday/20260228 2026-02-28",
        ])
        // The window ends 1 April 2026: 28 February 2027 waits, and enters it 90 days before,
        // on 30 November 2026 (28 days back to 31 January, 31 more to 31 December, 30 more).
        #expect(result.refreshAfter == Self.instant("2026-11-30T00:00:00Z"))
        let birthday = result.items.first { $0.key == "birthday/20250228" }
        #expect(birthday?.fields["end"] == "2025-03-01", "no DTEND: one day")
        #expect(birthday?.fields["all_day"] == true)
        #expect(birthday?.fields["tzid"] == nil)
        let holiday = result.items.first { $0.key == "holiday" }
        #expect(holiday?.fields["end"] == "2025-12-27")
        #expect(holiday?.fields["recurring"] == false)
    }

    /// A file of more events than libical is given at once (`ICalPieces`): its VTIMEZONE, written
    /// after the events, still places every piece's times, and an override pairs with a master in
    /// another piece.
    @Test func aLargeFileReadInPiecesGivesWhatItWouldWhole() {
        let single = (0..<450).map { i in
            "BEGIN:VEVENT\r\nUID:one-\(i)\r\nSUMMARY:one \(i)\r\nDTSTART;TZID=Custom/Plus3:20250101T100000\r\nDTEND;TZID=Custom/Plus3:20250101T110000\r\nEND:VEVENT\r\n"
        }
        let override = "BEGIN:VEVENT\r\nUID:team\r\nRECURRENCE-ID;TZID=Custom/Plus3:20250108T090000\r\nSUMMARY:team (moved)\r\n"
            + "DTSTART;TZID=Custom/Plus3:20250109T090000\r\nDTEND;TZID=Custom/Plus3:20250109T100000\r\nEND:VEVENT\r\n"
        let master = "BEGIN:VEVENT\r\nUID:team\r\nSUMMARY:team\r\nDTSTART;TZID=Custom/Plus3:20250101T090000\r\n"
            + "DTEND;TZID=Custom/Plus3:20250101T100000\r\nRRULE:FREQ=WEEKLY;COUNT=3\r\nEND:VEVENT\r\n"
        let zone = "BEGIN:VTIMEZONE\r\nTZID:Custom/Plus3\r\nBEGIN:STANDARD\r\nDTSTART:19700101T000000\r\nTZOFFSETFROM:+0300\r\n"
            + "TZOFFSETTO:+0300\r\nEND:STANDARD\r\nEND:VTIMEZONE\r\n"
        let result = Self.parse(override + single.joined() + master + zone)
        #expect(result.items.count == 453)
        #expect(result.warnings.isEmpty)
        let byKey = Dictionary(uniqueKeysWithValues: result.items.map { ($0.key, $0) })
        #expect(byKey["one-449"]?.fields["start"] == "2025-01-01T10:00:00+03:00")
        #expect(byKey["team/20250108T060000Z"]?.fields["title"] == "team (moved)")
        #expect(byKey["team/20250108T060000Z"]?.fields["start"] == "2025-01-09T09:00:00+03:00")
        #expect(byKey["team/20250115T060000Z"]?.fields["start"] == "2025-01-15T09:00:00+03:00")
    }

    /// Later pieces place their times in the zones of their own calendar's first piece: two
    /// VCALENDARs of one file, each read in two pieces, each defining its own `Custom/Office`.
    @Test func twoCalendarsReadInPiecesKeepTheirOwnZoneOfOneName() {
        func calendar(_ name: String, offset: String) -> String {
            let zone = "BEGIN:VTIMEZONE\r\nTZID:Custom/Office\r\nBEGIN:STANDARD\r\nDTSTART:19700101T000000\r\nTZOFFSETFROM:\(offset)\r\n"
                + "TZOFFSETTO:\(offset)\r\nEND:STANDARD\r\nEND:VTIMEZONE\r\n"
            let events = (0..<250).map { i in
                "BEGIN:VEVENT\r\nUID:\(name)-\(i)\r\nDTSTART;TZID=Custom/Office:20250101T100000\r\nDTEND;TZID=Custom/Office:20250101T110000\r\nEND:VEVENT\r\n"
            }
            return "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\n" + zone + events.joined() + "END:VCALENDAR\r\n"
        }
        let text = calendar("east", offset: "+0300") + calendar("west", offset: "-0500")
        let limits = RecurrenceLimits(windowEnd: Int64(Self.instant("2026-01-01T00:00:00Z").timeIntervalSince1970), maxPerSeries: 10)
        guard let (items, warnings, _, _) = CalendarAdapter.parse(path: "/cal/two.ics", bytes: Array(text.utf8), namedDirectly: true,
                                                                  limits: limits, lookAhead: 0).whole else {
            Issue.record("not parsed"); return
        }
        let byKey = Dictionary(uniqueKeysWithValues: items.map { ($0.key, $0.fields["start"]?.stringValue ?? "-") })
        #expect(byKey.count == 500)
        #expect(warnings.isEmpty)
        for i in [0, 249] {
            #expect(byKey["east-\(i)"] == "2025-01-01T10:00:00+03:00")
            #expect(byKey["west-\(i)"] == "2025-01-01T10:00:00-05:00")
        }
    }

    /// An override 250 events after its series, so in another piece: the file is not streamed,
    /// and the override still replaces its occurrence.
    @Test func anOverrideInALaterPieceThanItsSeriesStillReplacesItsOccurrence() {
        let series = "BEGIN:VEVENT\r\nUID:s\r\nSUMMARY:usual\r\nDTSTART:20250101T100000Z\r\nRRULE:FREQ=DAILY;COUNT=2\r\nEND:VEVENT\r\n"
        let fillers = (0..<250).map { "BEGIN:VEVENT\r\nUID:f\($0)\r\nDTSTART:20250101T100000Z\r\nEND:VEVENT\r\n" }.joined()
        let override = "BEGIN:VEVENT\r\nUID:s\r\nRECURRENCE-ID:20250102T100000Z\r\nSUMMARY:moved\r\nDTSTART:20250102T150000Z\r\nEND:VEVENT\r\n"
        let result = Self.parse(series + fillers + override)
        let byKey = Dictionary(uniqueKeysWithValues: result.items.map { ($0.key, $0) })
        #expect(result.items.count == 252)
        #expect(byKey["s/20250102T100000Z"]?.fields["title"] == "moved")
        #expect(byKey["s/20250102T100000Z"]?.fields["start"] == "2025-01-02T15:00:00Z")
    }

    /// Pieces keep a UID's components together: an override in the last piece whose series' UID
    /// line is folded, and whose alarm has a UID of its own, still replaces its occurrence; and a
    /// skipped component read out of file order still names its own line.
    @Test func piecesKeepAFoldedUIDsOverrideWithItsSeriesAndWarningsKeepTheirLines() {
        let uid = String(repeating: "040000008200E00074C5B7101A82E008", count: 3)       // Outlook's length
        let series = "BEGIN:VEVENT\r\nUID:\(uid.prefix(60))\r\n \(uid.dropFirst(60))\r\nSUMMARY:usual\r\nDTSTART:20250101T100000Z\r\n"
            + "RRULE:FREQ=DAILY;COUNT=2\r\nBEGIN:VALARM\r\nUID:alarm-1\r\nACTION:DISPLAY\r\nTRIGGER:-PT5M\r\nEND:VALARM\r\nEND:VEVENT\r\n"
        let fillers = (0..<250).map { "BEGIN:VEVENT\r\nUID:f\($0)\r\nDTSTART:20250101T100000Z\r\nEND:VEVENT\r\n" }
        let noStart = "BEGIN:VEVENT\r\nUID:no-start\r\nEND:VEVENT\r\n"
        let override = "BEGIN:VEVENT\r\nUID:\(uid)\r\nRECURRENCE-ID:20250102T100000Z\r\nSUMMARY:moved\r\nDTSTART:20250102T150000Z\r\nEND:VEVENT\r\n"
        let result = Self.parse(series + fillers[..<100].joined() + noStart + fillers[100...].joined() + override)
        #expect(result.items.count == 252)
        #expect(result.items.first { $0.key == "\(uid)/20250102T100000Z" }?.fields["title"] == "moved")
        // 3 header lines and 12 of the series, then 4 per filler: the bad event begins on line 416.
        #expect(result.warnings == ["line 416, UID no-start: no DTSTART; skipped"])
    }

    /// A UID in two VCALENDARs of one file cannot be kept in one piece: the file is read whole, and
    /// the override in the second still replaces its occurrence.
    @Test func anOverrideInAnotherCalendarThanItsSeriesStillReplacesItsOccurrence() {
        let series = "BEGIN:VEVENT\r\nUID:s\r\nSUMMARY:usual\r\nDTSTART:20250101T100000Z\r\nRRULE:FREQ=DAILY;COUNT=2\r\nEND:VEVENT\r\n"
        let fillers = (0..<250).map { "BEGIN:VEVENT\r\nUID:f\($0)\r\nDTSTART:20250101T100000Z\r\nEND:VEVENT\r\n" }.joined()
        let override = "BEGIN:VEVENT\r\nUID:s\r\nRECURRENCE-ID:20250102T100000Z\r\nSUMMARY:moved\r\nDTSTART:20250102T150000Z\r\nEND:VEVENT\r\n"
        let result = Self.parse(series + fillers + "END:VCALENDAR\r\nBEGIN:VCALENDAR\r\nVERSION:2.0\r\n" + override)
        #expect(result.items.count == 252)
        #expect(result.items.first { $0.key == "s/20250102T100000Z" }?.fields["title"] == "moved")
    }

    @Test func exdateRdateAndAnOverride() {
        let result = Self.parse("""
            BEGIN:VEVENT\r\nUID:team\r\nSUMMARY:team\r\nDTSTART;TZID=Europe/Berlin:20250303T090000\r\nDTEND;TZID=Europe/Berlin:20250303T100000\r\n\
            RRULE:FREQ=WEEKLY;COUNT=5\r\nEXDATE;TZID=Europe/Berlin:20250317T090000\r\nRDATE;TZID=Europe/Berlin:20250319T140000\r\nEND:VEVENT\r\n\
            BEGIN:VEVENT\r\nUID:team\r\nRECURRENCE-ID;TZID=Europe/Berlin:20250324T090000\r\nSUMMARY:team (moved)\r\n\
            DTSTART;TZID=Europe/Berlin:20250325T110000\r\nDTEND;TZID=Europe/Berlin:20250325T120000\r\nEND:VEVENT\r\n
            """)
        // COUNT=5 gives Mondays 3, 10, 17, 24, 31 March; 17 is excluded; the RDATE adds Wed 19
        // March 14:00 CET = 13:00Z; 24 March moves to Tue 25, 11:00; 31 March 09:00 CEST = 07:00Z.
        #expect(Self.starts(result.items) == [
            "team/20250303T080000Z 2025-03-03T09:00:00+01:00",
            "team/20250310T080000Z 2025-03-10T09:00:00+01:00",
            "team/20250319T130000Z 2025-03-19T14:00:00+01:00",
            "team/20250324T080000Z 2025-03-25T11:00:00+01:00",
            "team/20250331T070000Z 2025-03-31T09:00:00+02:00",
        ])
        let byKey = Dictionary(uniqueKeysWithValues: result.items.map { ($0.key, $0) })
        #expect(byKey["team/20250324T080000Z"]?.fields["title"] == "team (moved)")
        #expect(byKey["team/20250324T080000Z"]?.fields["end"] == "2025-03-25T12:00:00+01:00")
        #expect(byKey["team/20250319T130000Z"]?.fields["end"] == "2025-03-19T15:00:00+01:00", "an RDATE lasts as long as DTSTART…DTEND")
        #expect(byKey["team/20250331T070000Z"]?.fields["end"] == "2025-03-31T10:00:00+02:00")
        #expect(result.warnings.isEmpty)
    }

    @Test func floatingTimesStayWallTimesUnlessTheCalendarNamesAZone() {
        let floating = Self.parse("""
            BEGIN:VEVENT\r\nUID:float\r\nDTSTART:20250330T023000\r\nDURATION:PT1H\r\nRRULE:FREQ=WEEKLY;COUNT=2\r\nEND:VEVENT\r\n
            """)
        // 02:30 on 30 March does not exist in Berlin, but a floating time has no zone to skip it in.
        #expect(Self.starts(floating.items) == ["float/20250330T023000 2025-03-30T02:30:00", "float/20250406T023000 2025-04-06T02:30:00"])
        #expect(floating.items.first?.fields["end"] == "2025-03-30T03:30:00")
        #expect(floating.items.allSatisfy { $0.fields["time_floating"] == true && $0.fields["tzid"] == nil })

        let google = Self.parse("""
            BEGIN:VEVENT\r\nUID:picnic\r\nDTSTART:20250701T120000\r\nDTEND:20250701T150000\r\nEND:VEVENT\r\n
            """, header: "X-WR-CALNAME:Family\r\nX-WR-TIMEZONE:America/New_York\r\n")
        // 12:00 EDT = 16:00Z; not recurring, so the key is the bare UID.
        let picnic = google.items.first
        #expect(picnic?.key == "picnic")
        #expect(picnic?.fields["start"] == "2025-07-01T12:00:00-04:00")
        #expect(picnic?.fields["end"] == "2025-07-01T15:00:00-04:00")
        #expect(picnic?.fields["tzid"] == "America/New_York")
        #expect(picnic?.fields["time_floating"] == nil)
        #expect(picnic?.fields["calendar"] == "Family")
    }

    @Test func aVTimezoneOfTheFileWinsAndItsRulesApply() {
        let vtimezone = """
            BEGIN:VTIMEZONE\r\nTZID:W. Europe Standard Time\r\n\
            BEGIN:STANDARD\r\nDTSTART:16010101T030000\r\nTZOFFSETFROM:+0200\r\nTZOFFSETTO:+0100\r\nRRULE:FREQ=YEARLY;BYDAY=-1SU;BYMONTH=10\r\nEND:STANDARD\r\n\
            BEGIN:DAYLIGHT\r\nDTSTART:16010101T020000\r\nTZOFFSETFROM:+0100\r\nTZOFFSETTO:+0200\r\nRRULE:FREQ=YEARLY;BYDAY=-1SU;BYMONTH=3\r\nEND:DAYLIGHT\r\n\
            END:VTIMEZONE\r\n\
            BEGIN:VTIMEZONE\r\nTZID:Custom/Plus3\r\nBEGIN:STANDARD\r\nDTSTART:19700101T000000\r\nTZOFFSETFROM:+0300\r\nTZOFFSETTO:+0300\r\nEND:STANDARD\r\nEND:VTIMEZONE\r\n
            """
        let result = Self.parse("""
            BEGIN:VEVENT\r\nUID:outlook\r\nDTSTART;TZID=W. Europe Standard Time:20250327T100000\r\nRRULE:FREQ=WEEKLY;COUNT=2\r\nEND:VEVENT\r\n\
            BEGIN:VEVENT\r\nUID:plus3\r\nDTSTART;TZID=Custom/Plus3:20250601T120000\r\nEND:VEVENT\r\n
            """, header: vtimezone)
        #expect(Self.starts(result.items) == [
            "outlook/20250327T090000Z 2025-03-27T10:00:00+01:00",
            "outlook/20250403T080000Z 2025-04-03T10:00:00+02:00",
            "plus3 2025-06-01T12:00:00+03:00",
        ])
        #expect(result.items.first { $0.key == "plus3" }?.fields["tzid"] == "Custom/Plus3")
    }

    @Test func theWindowKeepsTheOccurrencesNearestItsEndAndSaysWhenToLookAgain() {
        let body = "BEGIN:VEVENT\r\nUID:daily\r\nDTSTART:20250101T100000Z\r\nRRULE:FREQ=DAILY\r\nEND:VEVENT\r\n"
        // Now 10 Jan 00:00Z + 5 days: the window ends 15 Jan 00:00Z, so 1…14 January; 15 January
        // 10:00Z enters the window 5 days before, on 10 January 10:00Z.
        let windowed = Self.parse(body, now: "2025-01-10T00:00:00Z", lookAheadDays: 5)
        #expect(windowed.items.count == 14)
        #expect(windowed.items.last?.key == "daily/20250114T100000Z")
        #expect(windowed.refreshAfter == Self.instant("2025-01-10T10:00:00Z"))
        // A cap keeps the occurrences nearest the window's end (12…14 January), and the series
        // still needs a re-read when 15 January enters the window.
        let capped = Self.parse(body, now: "2025-01-10T00:00:00Z", lookAheadDays: 5, max: 3)
        #expect(capped.items.map(\.key) == ["daily/20250112T100000Z", "daily/20250113T100000Z", "daily/20250114T100000Z"])
        #expect(capped.refreshAfter == Self.instant("2025-01-10T10:00:00Z"))
        // A single event beyond the window waits for it too.
        let later = Self.parse("BEGIN:VEVENT\r\nUID:later\r\nDTSTART:20250301T000000Z\r\nEND:VEVENT\r\n", now: "2025-01-10T00:00:00Z", lookAheadDays: 5)
        #expect(later.items.isEmpty)
        #expect(later.refreshAfter == Self.instant("2025-02-24T00:00:00Z"))
    }
}
