import Foundation
import Testing
@testable import Adapters

/// A Google Fit Takeout "All Data" file around Berlin's switch to summer time (2024-03-31 01:00 UTC).
struct GoogleFitTakeoutJSONTests {
    static let t = 1_711_843_200.0                    // 2024-03-31 00:00 UTC

    @Test func dataPointsBecomeSamplesWithTheirOriginAsSource() throws {
        let path = FitbitExportJSONTests.fixture("google-fit/All Data.json")
        let head = Array(try Data(contentsOf: URL(fileURLWithPath: path)).prefix(4096))
        #expect(GoogleFitTakeoutJSON.detect(name: "All Data.json", head: head))
        #expect(!FitbitExportJSON.detect(name: "All Data.json", head: head) && !GadgetbridgeDatabase.detect(name: "All Data.json", head: head))
        let out = HealthCollector()
        try GoogleFitTakeoutJSON.read(HealthInput(path: path), FitbitExportJSONTests.berlin, into: out)
        let t = Self.t
        func sample(_ kind: HealthSample.Kind, _ start: Double, _ end: Double, _ offset: Int, _ value: Double, _ source: String) -> HealthSample {
            HealthSample(kind: kind, start: start, end: end, offset: offset, value: value, source: source)
        }
        #expect(out.samples == [
            sample(.steps, t + 1800, t + 2400, 3600, 300, "Google Fit: Pixel 7"),       // 01:30 CET
            sample(.steps, t + 5400, t + 6000, 7200, 450, "Google Fit: Pixel 7"),       // 03:30 CEST
            sample(.heartRate, t + 3590, t + 3590, 3600, 64, "Google Fit: com.mc.miband1"),
            sample(.sleep(.core), t - 7200, t - 3600, 3600, 3600, "Google Fit"),
            sample(.sleep(.deep), t - 3600, t - 1800, 3600, 1800, "Google Fit"),
            sample(.sleep(.awake), t - 1800, t - 1200, 3600, 600, "Google Fit"),
            sample(.sleep(.rem), t - 1200, t, 3600, 1200, "Google Fit"),
        ], "out of bed is neither sleep nor awake")
        #expect(out.badCount == 2)
        #expect(out.firstBad == "line 139: unknown sleep segment 9")
        #expect(out.notes == ["All Data.json: com.google.calories.expended is not read"])
        let days = DayRollup(priority: []).days(out.samples)
        #expect(days.map(\.date) == ["2024-03-31"], "sleep ending at 01:00 CET counts toward 31 March")
        #expect(days[0].steps == 750 && days[0].sleepSeconds == 6600)
    }

    @Test func aCutOffFileKeepsThePointsBeforeTheCut() throws {
        let whole = try Data(contentsOf: URL(fileURLWithPath: FitbitExportJSONTests.fixture("google-fit/All Data.json")))
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("google-fit-\(UUID().uuidString).json").path
        try whole.prefix(whole.count / 4).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let out = HealthCollector()
        try GoogleFitTakeoutJSON.read(HealthInput(path: path), FitbitExportJSONTests.berlin, into: out)
        #expect(out.samples.count == 2 && out.samples[1].value == 450)
        #expect(out.notes.count == 1 && out.notes[0].contains("is cut off at line"))
    }

    @Test func anObjectWithoutDataPointsIsOneError() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("google-fit-\(UUID().uuidString).json").path
        try Data("{\"Data Source\": \"x\", \"Points\": [1]}".utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(throws: FileReadError.self) { try GoogleFitTakeoutJSON.read(HealthInput(path: path), FitbitExportJSONTests.berlin, into: HealthCollector()) }
    }
}
