import Foundation
import Testing
@testable import Adapters

/// Apple Health records into samples, and samples into days, against hand-computed totals.
struct DayRollupTests {
    func samples(_ records: [[String: String]]) throws -> [HealthSample] {
        try records.compactMap { if case .sample(let s) = try record($0) { s } else { nil } }
    }

    func steps(_ value: Int, _ start: String, _ end: String, source: String) -> [String: String] {
        ["type": "HKQuantityTypeIdentifierStepCount", "sourceName": source, "unit": "count", "startDate": start, "endDate": end, "value": String(value)]
    }

    func fixtureSamples() throws -> [HealthSample] {
        var out: [HealthSample] = []
        var mapper = AppleHealthRecord.Mapper()
        try StartTagScanner(stream: try FileByteStream(path: StartTagScannerTests.fixture), names: ["Record"]).scan { tag in
            if case .sample(let s) = mapper.sample(tag) { out.append(s) }
        }
        return out
    }

    @Test func watchAndPhoneStepsAreNotCountedTwice() throws {
        let samples = try fixtureSamples()
        // Watch 812 steps 08:00–08:10, phone 640 steps 08:01–08:09 (inside the watch's interval).
        let watchFirst = DayRollup(priority: ["*Watch*"]).days(samples)
        #expect(watchFirst.map(\.date) == ["2024-06-01", "2024-06-02"])
        #expect(watchFirst[0].steps == 812, "the phone's steps fall inside the watch's time")
        // Phone first: all 640, plus the watch's 2 of 10 minutes the phone does not cover: 812 × 0.2.
        let phoneFirst = DayRollup(priority: ["*iPhone*"]).days(samples)
        #expect(abs((phoneFirst[0].steps ?? 0) - 802.4) < 1e-9)
        #expect(watchFirst[0].heartRate?.min == 71 && watchFirst[0].heartRate?.max == 71)
        #expect(watchFirst[0].timeZone == "+02:00")
        // Core sleep 23:40–01:10 belongs to the morning it ends: 90 min on 2 June.
        #expect(watchFirst[1].sleepSeconds == 5400)
        #expect(watchFirst[1].steps == nil, "the record cut off at the file's end is not counted")
    }

    @Test func eachSampleLandsOnTheDayOfItsOwnOffset() throws {
        let days = DayRollup(priority: []).days(try samples([
            // Berlin, the night of the DST change: 01:30 CET and 03:30 CEST are both 31 March.
            steps(100, "2024-03-31 01:30:00 +0100", "2024-03-31 01:40:00 +0100", source: "phone"),
            steps(200, "2024-03-31 03:30:00 +0200", "2024-03-31 03:40:00 +0200", source: "phone"),
            steps(7, "2024-03-30 23:30:00 +0100", "2024-03-30 23:40:00 +0100", source: "phone"),
            // New York 23:30 on 1 June is 03:30 UTC on 2 June, but the person's day is 1 June.
            steps(300, "2024-06-01 23:30:00 -0400", "2024-06-01 23:40:00 -0400", source: "phone"),
            steps(50, "2024-06-02 05:00:00 +0200", "2024-06-02 05:10:00 +0200", source: "phone"),
        ]))
        #expect(days.map(\.date) == ["2024-03-30", "2024-03-31", "2024-06-01", "2024-06-02"])
        #expect(days.map(\.steps) == [7, 300, 300, 50])
        #expect(days.map(\.timeZone) == ["+01:00", "+01:00", "-04:00", "+02:00"], "a tie goes to the earlier offset")
    }

    /// One `<Record …/>` with these attributes, written out, scanned and mapped as an export's would be.
    func record(_ attributes: [String: String]) throws -> AppleHealthRecord.Outcome {
        func escaped(_ v: String) -> String { v.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "\"", with: "&quot;") }
        let xml = "<HealthData>\n <Record " + attributes.keys.sorted().map { "\($0)=\"\(escaped(attributes[$0]!))\"" }.joined(separator: " ") + "/>\n</HealthData>\n"
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("record-\(UUID().uuidString).xml").path
        try Data(xml.utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        var mapper = AppleHealthRecord.Mapper()
        var outcome = AppleHealthRecord.Outcome.bad("no Record")
        try StartTagScanner(stream: try FileByteStream(path: path), names: ["Record"]).scan { outcome = mapper.sample($0) }
        return outcome
    }

    @Test func badRecordsAreNamedAndOtherTypesIgnored() throws {
        #expect(try record(["type": "HKQuantityTypeIdentifierFlightsClimbed"]) == .ignored)
        #expect(try record(steps(-5, "2024-06-01 08:00:00 +0200", "2024-06-01 08:10:00 +0200", source: "x")) == .bad("value -5 is not a number ≥ 0"))
        #expect(try record(steps(5, "2024-06-01T08:00:00Z", "2024-06-01 08:10:00 +0200", source: "x")) == .bad("unreadable startDate 2024-06-01T08:00:00Z"))
        #expect(try record(["type": "HKCategoryTypeIdentifierSleepAnalysis", "value": "HKCategoryValueSleepAnalysisDreaming"])
                == .bad("unknown sleep value HKCategoryValueSleepAnalysisDreaming"))
    }

    @Test func datesAndCivilDaysRoundTrip() {
        #expect(AppleHealthRecord.parseDate("2024-06-01 08:00:00 +0200")! == (1_717_221_600, 7200))
        #expect(AppleHealthRecord.parseDate("1969-12-31 23:00:00 -0130")! == (-3600 + 5400, -5400))
        let june = HealthSample(kind: .steps, start: 1_717_221_600, end: 1_717_221_600, offset: -9 * 3600, value: 1, source: "x")
        #expect(HealthTime.localDate(of: june.start, offset: june.offset) == "2024-05-31", "06:00 UTC is 21:00 the evening before at UTC-9")
        let before1970 = HealthSample(kind: .steps, start: -1, end: -1, offset: 0, value: 1, source: "x")
        #expect(HealthTime.localDate(of: -1, offset: before1970.offset) == "1969-12-31")
    }
}
