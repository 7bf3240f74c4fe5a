import Foundation
import Testing
@testable import Adapters

/// Column-mapped CSV: a `;` spreadsheet with decimal commas and daily rows, an ISO file with
/// points across a DST change and in other offsets, and an appended file (the row reader: CSVRowsTests).
struct ColumnCSVTests {
    static func fixture(_ name: String) -> String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("fixtures/health/csv/\(name)").path
    }

    static let berlin = ZoneRules(named: "Europe/Berlin")!

    static let daily = HealthSettings(timeZone: berlin, columns: ["steps": "Steps", "sleep": "Sleep (h)", "resting_heart_rate": "Resting HR"],
                                      dateColumn: "Day", dateFormat: "%d.%m.%Y")
    static let points = HealthSettings(timeZone: berlin, columns: ["heart_rate": "heart_rate", "heart_rate_min": "hr_min", "heart_rate_max": "hr_max"],
                                       dateColumn: "timestamp", dateFormat: "")

    func read(_ name: String, _ settings: HealthSettings, offset: Int64 = 0, path: String? = nil) throws -> HealthCollector {
        let out = HealthCollector()
        try ColumnCSV.read(HealthInput(path: path ?? Self.fixture(name), offset: offset), settings, into: out)
        return out
    }

    @Test func dateOnlyRowsAreDailyFiguresFromLocalMidnight() throws {
        let out = try read("daily-semicolon.csv", Self.daily)
        let source = "daily-semicolon.csv"
        // 1 June in Berlin runs from 31 May 22:00 UTC to 1 June 22:00 UTC.
        #expect(Array(out.samples.prefix(3)) == [
            HealthSample(kind: .restingHeartRate, start: 1_717_192_800, end: 1_717_279_200, offset: 7200, value: 54, source: source, daily: true),
            HealthSample(kind: .steps, start: 1_717_192_800, end: 1_717_279_200, offset: 7200, value: 8123, source: source, daily: true),
            HealthSample(kind: .sleep(.asleep), start: 1_717_192_800, end: 1_717_192_800 + 27_000, offset: 7200, value: 27_000, source: source, daily: true),
        ], "7,5 h with a decimal comma; the quoted note holds a ; and doubled quotes")
        #expect(out.samples.filter { $0.kind == .steps }.map(\.value) == [8123, 9000], "\" 9000 \" is trimmed; -100 is rejected")
        let days = DayRollup(priority: []).days(out.samples)
        #expect(days.map(\.date) == ["2024-06-01", "2024-06-02"], "the -100-step row is skipped whole, its sleep and heart rate too")
        #expect(days.map(\.sleepSeconds) == [27_000, nil])
        #expect(days.map(\.restingHeartRate) == [54, 55])
    }

    @Test func badRowsAreCountedAndTheFirstIsNamed() throws {
        let out = try read("daily-semicolon.csv", Self.daily)
        // Line 4: -100 steps; line 5: 31.06.2024; line 6: three fields; line 7: "abc".
        #expect(out.badCount == 4)
        #expect(out.firstBad == "line 4: negative value -100.0")
    }

    @Test func dateTimeRowsArePointsInTheZoneOrTheirOwnOffset() throws {
        let out = try read("points.csv", Self.points)
        let source = "points.csv"
        // 31 March 2024, Berlin: 01:30 CET is 00:30 UTC, 03:30 CEST is 01:30 UTC (1711843200 is 00:00 UTC).
        #expect(out.samples == [
            HealthSample(kind: .heartRate, start: 1_711_845_000, end: 1_711_845_000, offset: 3600, value: 60, source: source, low: 55, high: 65),
            HealthSample(kind: .heartRate, start: 1_711_848_600, end: 1_711_848_600, offset: 7200, value: 70, source: source),
            HealthSample(kind: .heartRate, start: 1_711_866_600, end: 1_711_866_600, offset: 19_800, value: 80, source: source),
            HealthSample(kind: .heartRate, start: 1_711_893_600, end: 1_711_893_600, offset: 0, value: 90, source: source),
        ])
        #expect(out.badCount == 0, "a quoted comma and a quoted line break are data")
    }

    @Test func anAppendedFileIsReadFromWhereItGrewWithTheHeaderFromItsFirstLine() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("hl-append-\(UUID().uuidString).csv").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        var bytes = try Data(contentsOf: URL(fileURLWithPath: Self.fixture("points.csv")))
        let grewAt = Int64(bytes.count)
        bytes.append(contentsOf: Array("2024-04-01T08:00:00,75,,,\nbroken,1,2\n".utf8))
        try bytes.write(to: URL(fileURLWithPath: path))
        let out = try read("", Self.points, offset: grewAt, path: path)
        #expect(out.samples.map(\.start) == [1_711_951_200] && out.samples.map(\.value) == [75])
        #expect(out.firstBad == "line 2: 3 fields where the header has 5 (lines counted from byte \(grewAt), where the file grew)")
    }

    @Test func configErrorsNameTheColumn() {
        var settings = Self.daily
        settings.columns["steps"] = "Schritte"
        #expect(throws: FileReadError("the column Schritte (Column.steps) is not in the header")) {
            _ = try read("daily-semicolon.csv", settings)
        }
        settings.columns = ["stepz": "Steps"]
        #expect(throws: FileReadError.self) { _ = try read("daily-semicolon.csv", settings) }
        #expect(!ColumnCSV.detect(name: "steps.csv", head: Array("Date,Steps\n".utf8)), "only chosen by the config")
    }

    @Test func dateLayoutsReadPatternsAndISO() throws {
        let iso = try DateLayout("")
        #expect(iso.parse("2024-06-01") == WallTime(year: 2024, month: 6, day: 1))
        #expect(iso.parse("2024-06-01T08:05:30.25+02:00") == WallTime(year: 2024, month: 6, day: 1, hour: 8, minute: 5, second: 30.25, hasTime: true, offset: 7200))
        #expect(iso.parse("2024-06-01 08:05:00 -0430")?.offset == -16_200)
        #expect(iso.parse("2024-02-30") == nil && iso.parse("2024-06-01T25:00") == nil && iso.parse("01.06.2024") == nil)
        let german = try DateLayout("%d.%m.%Y %H:%M")
        #expect(german.parse("1.6.2024 7:05") == WallTime(year: 2024, month: 6, day: 1, hour: 7, minute: 5, hasTime: true))
        let named = try DateLayout("%d %b %y")
        #expect(named.parse("05 Jun 24") == WallTime(year: 2024, month: 6, day: 5))
        #expect(named.parse("05 September 99")?.year == 1999 && named.parse("05 Jux 24") == nil)
        #expect(throws: FileReadError.self) { _ = try DateLayout("%Y-%j") }
        // Across the spring-forward night, a date's day is 23 hours long.
        let bounds = WallTime(year: 2024, month: 3, day: 31).dayBounds(in: Self.berlin)
        #expect(bounds.end - bounds.start == 23 * 3600 && bounds.offset == 3600)
    }
}
