import Foundation
import Testing
@testable import Adapters

/// Fitbit export files around Berlin's switch to summer time (2024-03-31, 02:00 CET → 03:00 CEST,
/// which is 01:00 UTC). Instants are hand-computed: 2024-03-31 00:00 UTC is 1_711_843_200.
struct FitbitExportJSONTests {
    static func fixture(_ relative: String) -> String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("fixtures/health/" + relative).path
    }

    static let berlin = HealthSettings(timeZone: ZoneRules(named: "Europe/Berlin")!)
    static let midnightUTC = 1_711_843_200.0          // 2024-03-31 00:00 UTC

    func read(_ name: String) throws -> HealthCollector {
        let out = HealthCollector()
        try FitbitExportJSON.read(HealthInput(path: Self.fixture("fitbit/" + name)), Self.berlin, into: out)
        return out
    }

    func sample(_ kind: HealthSample.Kind, _ start: Double, _ end: Double, _ offset: Int, _ value: Double) -> HealthSample {
        HealthSample(kind: kind, start: start, end: end, offset: offset, value: value, source: "Fitbit")
    }

    @Test func stepsAreUTCMinutesWithTheZonesOffsetAtEachInstant() throws {
        let out = try read("steps-2024-03-31.json")
        let t = Self.midnightUTC
        #expect(out.samples == [
            sample(.steps, t - 3660, t - 3600, 3600, 15),            // 30 Mar 22:59 UTC = 23:59 CET
            sample(.steps, t + 1800, t + 1860, 3600, 40),            // 00:30 UTC = 01:30 CET
            sample(.steps, t + 5400, t + 5460, 7200, 120),           // 01:30 UTC = 03:30 CEST
            sample(.steps, t + 32_400, t + 32_460, 7200, 1000),      // 09:00 UTC = 11:00 CEST
        ], "the zero-step minute is left out")
        #expect(out.badCount == 2)
        #expect(out.firstBad == "line 13: unreadable dateTime 03/31/24 99:00:00")
        #expect(out.notes.isEmpty)
    }

    @Test func heartRateKeepsEachReadingsOffsetAcrossTheSwitch() throws {
        let out = try read("heart_rate-2024-03-31.json")
        let t = Self.midnightUTC
        #expect(out.samples == [sample(.heartRate, t + 3595, t + 3595, 3600, 58), sample(.heartRate, t + 3605, t + 3605, 7200, 61)])
        #expect(out.badCount == 1 && out.firstBad == "line 13: heart rate 400.0/min")
    }

    @Test func restingHeartRateIsADailyFigureAndZeroMeansNone() throws {
        let out = try read("resting_heart_rate-2024-03-31.json")
        // 31 March runs from 00:00 CET (30 Mar 23:00 UTC) to 00:00 CEST on 1 April (31 Mar 22:00 UTC): 23 hours.
        var expected = sample(.restingHeartRate, Self.midnightUTC - 3600, Self.midnightUTC + 22 * 3600, 3600, 58.2)
        expected.daily = true
        #expect(out.samples == [expected])
        #expect(out.badCount == 0)
    }

    @Test func caloriesAboveTheDaysBasalFloorAreActiveAndACutFileKeepsWhatCameBefore() throws {
        let out = try read("calories-2024-03-31.json")
        let t = Self.midnightUTC + 10 * 3600                         // 10:00 UTC
        #expect(out.samples.map(\.kind) == [.activeEnergy, .activeEnergy])
        #expect(out.samples.map(\.start) == [t + 120, t + 180])
        #expect(abs(out.samples[0].value - 4.5) < 1e-9 && abs(out.samples[1].value - 2.2) < 1e-9, "5.6 and 3.3 kcal over the 1.1 floor")
        #expect(out.notes == ["calories-2024-03-31.json is cut off at line 14: the records before it were read"])
        #expect(out.badCount == 0)
    }

    @Test func sleepStagesAreLocalWallTimeWithShortWakesCutOut() throws {
        let out = try read("sleep-2024-03-31.json")
        let t = Self.midnightUTC
        // Light 04:30–06:00 CEST is cut by the 90 s short wake at 05:00 into 04:30–05:00 and 05:01:30–06:00.
        #expect(out.samples == [
            sample(.sleep(.core), t + 1800, t + 3600, 3600, 1800),               // 01:30 CET
            sample(.sleep(.deep), t + 3600, t + 7200, 7200, 3600),               // 03:00 CEST: the hour that never was is skipped
            sample(.sleep(.rem), t + 7200, t + 8400, 7200, 1200),
            sample(.sleep(.awake), t + 8400, t + 9000, 7200, 600),
            sample(.sleep(.core), t + 9000, t + 10_800, 7200, 1800),
            sample(.sleep(.awake), t + 10_800, t + 10_890, 7200, 90),
            sample(.sleep(.core), t + 10_890, t + 14_400, 7200, 3510),
            sample(.sleep(.asleep), t + 43_200, t + 43_800, 7200, 600),          // the classic nap at 14:00 CEST
            sample(.sleep(.awake), t + 43_800, t + 43_920, 7200, 120),           // restless
        ])
        #expect(out.badCount == 1)
        #expect(out.firstBad == "line 51: sleep log 45678901299: data entry 3 has an unreadable dateTime, level or seconds")
    }

    @Test func theDayAcrossTheSwitchRollsUpFromAllFiles() throws {
        var samples: [HealthSample] = []
        for name in ["steps", "heart_rate", "resting_heart_rate", "calories", "sleep"] {
            samples += try read(name + "-2024-03-31.json").samples
        }
        let days = DayRollup(priority: ["Fitbit"]).days(samples)
        #expect(days.map(\.date) == ["2024-03-30", "2024-03-31"])
        #expect(days[0].steps == 15 && days[0].timeZone == "+01:00")
        let day = days[1]
        #expect(day.steps == 1160)
        #expect(day.restingHeartRate == 58.2)
        #expect(day.heartRate?.min == 58 && day.heartRate?.max == 61)
        #expect(abs((day.activeEnergy ?? 0) - 6.7) < 1e-9)
        #expect(day.sleepSeconds == 12_510, "1800 + 3600 + 1200 + 1800 + 3510 + 600: awake and the short wake are not sleep")
        #expect(day.timeZone == "+02:00")
    }

    @Test func wallTimesInAGapOrAFoldTakeTheOffsetInForceBefore() {
        let zone = Self.berlin.timeZone, t = Self.midnightUTC
        #expect(HealthTime.instant(year: 2024, month: 3, day: 31, hour: 1, minute: 30, in: zone) == (t + 1800, 3600))
        #expect(HealthTime.instant(year: 2024, month: 3, day: 31, hour: 2, minute: 30, in: zone) == (t + 5400, 3600), "02:30 never happened")
        #expect(HealthTime.instant(year: 2024, month: 3, day: 31, hour: 3, minute: 30, in: zone) == (t + 5400, 7200))
        // 27 October: 02:30 happens twice, first in summer time (00:30 UTC), then in winter time.
        #expect(HealthTime.instant(year: 2024, month: 10, day: 27, hour: 2, minute: 30, in: zone) == (1_729_989_000, 7200))
        #expect(HealthTime.instant(year: 2024, month: 10, day: 27, hour: 3, minute: 30, in: zone) == (1_729_989_000 + 7200, 3600))
    }

    @Test func detectionGoesByNameAndAnArray() {
        #expect(FitbitExportJSON.detect(name: "steps-2024-03-31.json", head: Array(" [{".utf8)))
        #expect(FitbitExportJSON.detect(name: "resting_heart_rate-2024-03-31.json", head: Array("[".utf8)))
        #expect(!FitbitExportJSON.detect(name: "distance-2024-03-31.json", head: Array("[".utf8)))
        #expect(!FitbitExportJSON.detect(name: "steps-2024-03-31.json", head: Array("{\"data\":".utf8)))
        #expect(!FitbitExportJSON.detect(name: "steps-march.json", head: Array("[".utf8)))
    }

    @Test func garbageIsOneErrorOrBadRecordsNeverACrash() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("fitbit-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let garbage = dir.appendingPathComponent("steps-2024-01-01.json").path
        try Data([0x00, 0xFF, 0x7B, 0x22]).write(to: URL(fileURLWithPath: garbage))
        #expect(throws: FileReadError.self) { try FitbitExportJSON.read(HealthInput(path: garbage), Self.berlin, into: HealthCollector()) }
        let odd = dir.appendingPathComponent("heart_rate-2024-01-01.json").path
        try Data("[1, \"x\", {\"dateTime\": 5}, {\"value\": }, {\"dateTime\":\"01/01/24 00:00:00\",\"value\":{\"bpm\":70}}]".utf8).write(to: URL(fileURLWithPath: odd))
        let out = HealthCollector()
        try FitbitExportJSON.read(HealthInput(path: odd), Self.berlin, into: out)
        #expect(out.samples.count == 1 && out.samples[0].value == 70)
        #expect(out.badCount == 4)
        let renamed = dir.appendingPathComponent("export.json").path
        try Data("[{\"dateTime\":\"01/01/24 00:00:00\",\"value\":\"5\"}]".utf8).write(to: URL(fileURLWithPath: renamed))
        #expect(throws: FileReadError.self) { try FitbitExportJSON.read(HealthInput(path: renamed), Self.berlin, into: HealthCollector()) }
    }
}
