import Foundation
import Testing
@testable import Adapters

/// Health Auto Export JSON against a hand-written export: data before name, kJ, numbers as
/// strings, joined sources, both sleep shapes, three workout shapes, a cut-off copy and garbage.
struct HealthAutoExportJSONTests {
    static func fixture(_ name: String) -> String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("fixtures/health/hae/\(name)").path
    }

    static let watch = "Anna's Apple Watch"

    func read(_ name: String) throws -> HealthCollector {
        let out = HealthCollector()
        try HealthAutoExportJSON.read(HealthInput(path: Self.fixture(name)), HealthSettings(), into: out)
        return out
    }

    func of(_ out: HealthCollector, _ kind: HealthSample.Kind) -> [HealthSample] { out.samples.filter { $0.kind == kind } }

    /// Reads `bytes` streamed as a file is, in reads of `chunk` bytes: every value gets cut by a
    /// block's end somewhere.
    func read(_ bytes: [UInt8], chunk: Int = 7, into out: HealthCollector) throws {
        try HealthAutoExportJSON.read(MemoryByteStream(bytes, chunk: chunk), reopen: { MemoryByteStream(Array(bytes[Int($0)...]), chunk: chunk) }, into: out)
    }

    @Test func quantitiesComeOutWithTheirInstantsOffsetsAndSources() throws {
        let out = try read("export.json")
        // 2024-06-01 08:00 +0200 is 06:00 UTC: 1717200000 (midnight UTC) + 6 h.
        #expect(of(out, .steps) == [
            HealthSample(kind: .steps, start: 1_717_221_600, end: 1_717_221_600, offset: 7200, value: 120, source: Self.watch),
            HealthSample(kind: .steps, start: 1_717_221_660, end: 1_717_221_660, offset: 7200, value: 80,
                         source: "Anna's Apple Watch|Anna\u{2019}s iPhone"),
            // 23:30 -0400 on 1 June is 03:30 UTC on 2 June.
            HealthSample(kind: .steps, start: 1_717_299_000, end: 1_717_299_000, offset: -14_400, value: 300.5, source: "Anna\u{2019}s iPhone"),
        ], "the data came before the metric's name, and is read once the name is known")
        let energy = of(out, .activeEnergy)
        #expect(energy.map(\.start) == [1_717_221_600, 1_717_225_200])
        #expect(abs(energy[0].value - 100) < 1e-9 && abs(energy[1].value - 10) < 1e-9, "418.4 kJ and \"4.184e1\" kJ in kcal")
        let rates = of(out, .heartRate)
        #expect(rates.map(\.value) == [71.5, 65] && rates.map(\.low) == [62, 60] && rates.map(\.high) == [88, 70])
        #expect(of(out, .restingHeartRate).map(\.value) == [54] && of(out, .restingHeartRate)[0].start == 1_717_279_200)
        #expect(of(out, .hrv).map(\.value) == [42.5, 37.5] && of(out, .hrv).map(\.start) == [1_717_300_800, 1_717_304_400])
        #expect(out.notes == ["hae-json: metric blood_pressure is not read"])
    }

    @Test func badPointsAreCountedAndTheFirstIsNamed() throws {
        let out = try read("export.json")
        // Line 9: an ISO date; line 10: -40 steps; line 11: "n/a"; line 79: the sleep value "Dreaming".
        #expect(out.badCount == 4)
        #expect(out.firstBad == "line 9: unreadable date 2024-06-01T09:00:00Z")
    }

    @Test func aggregatedSleepIsLaidEndToEndFromSleepStart() throws {
        let out = try read("export.json")
        let sleep = out.samples.filter { if case .sleep = $0.kind { true } else { false } }
        // sleepStart 23:10 +0200 = 21:10 UTC = 1717276200. Hours: core 4.1, deep 1.2, rem 1.6,
        // unspecified 0.3 (totalSleep is given, so `asleep` is only the unspecified part), awake 0.25.
        let night = Array(sleep.prefix(6))
        #expect(night.map(\.kind) == [.sleep(.core), .sleep(.deep), .sleep(.rem), .sleep(.asleep), .sleep(.awake), .sleep(.inBed)])
        let ends: [Double] = [1_717_290_960, 1_717_295_280, 1_717_301_040, 1_717_302_120, 1_717_303_020]
        for (sample, end) in zip(night, ends) { #expect(abs(sample.end - end) < 1e-6) }
        #expect(night[0].start == 1_717_276_200)
        // In bed from inBedStart 22:55 +0200 (20:55 UTC) for 8 h.
        #expect(night[5].start == 1_717_275_300 && night[5].end == 1_717_304_100)
        // Unaggregated stages: Core 23:00–00:30 and Deep 00:30–01:15 (+0200); "Dreaming" is bad.
        #expect(Array(sleep.dropFirst(6)) == [
            HealthSample(kind: .sleep(.core), start: 1_717_362_000, end: 1_717_367_400, offset: 7200, value: 5400, source: Self.watch),
            HealthSample(kind: .sleep(.deep), start: 1_717_367_400, end: 1_717_370_100, offset: 7200, value: 2700, source: Self.watch),
        ])
    }

    @Test func workoutsReadEnergyAsObjectSeriesOrNumberAndDistanceInAnyUnit() throws {
        let out = try read("export.json")
        #expect(out.workouts.map(\.activity) == ["running", "cycling", "walking"])
        #expect(out.workouts[0] == HealthWorkout(activity: "running", start: 1_717_257_600, end: 1_717_259_400, offset: 7200,
                                                 energyKcal: 300, distanceM: 5200, source: "Health Auto Export"),
                "activeEnergyBurned wins over the per-minute series")
        #expect(abs((out.workouts[1].energyKcal ?? 0) - 200) < 1e-9, "418.4 kJ + 100 kcal from the series")
        #expect(abs((out.workouts[1].distanceM ?? 0) - 16_093.44) < 1e-6, "10 mi")
        #expect(out.workouts[1].start == 1_717_304_400)
        #expect(out.workouts[2].energyKcal == 80 && out.workouts[2].distanceM == 800, "a bare number, and \"800\" m")
    }

    @Test func theFixtureRollsUpToHandComputedDays() throws {
        let days = DayRollup(priority: ["*Watch*"]).days(try read("export.json").samples)
        #expect(days.map(\.date) == ["2024-06-01", "2024-06-02", "2024-06-03"])
        // 1 June: 120 + 80 steps (+0200) + 300.5 (23:30 at -0400 is still 1 June there).
        #expect(days[0].steps == 500.5)
        #expect(abs((days[0].activeEnergy ?? 0) - 110) < 1e-9)
        // The mean of the two averages. (DayRollup takes min and max from the averages too, not
        // from each sample's low and high: 65 and 71.5 here, where 60 and 88 were measured.)
        #expect(days[0].heartRate?.avg == 68.25)
        #expect(days[0].timeZone == "+02:00" && days[0].sleepSeconds == nil)
        // 2 June: the night of waking (7.2 h asleep), resting 54, HRV (42.5 + 37.5) / 2.
        #expect(abs((days[1].sleepSeconds ?? 0) - 25_920) < 1e-6)
        #expect(days[1].restingHeartRate == 54 && days[1].hrv == 40 && days[1].steps == nil)
        // 3 June: core 1.5 h + deep 0.75 h.
        #expect(days[2].sleepSeconds == 8100)
    }

    @Test func aCutOffExportKeepsWhatCameBeforeTheCut() throws {
        let out = HealthCollector()
        let error = #expect(throws: FileReadError.self) {
            try HealthAutoExportJSON.read(HealthInput(path: Self.fixture("export-cut.json")), HealthSettings(), into: out)
        }
        #expect(error?.description == "cut off at line 29", "the adapter adds the file's name and that what came before is kept")
        #expect(of(out, .steps).count == 3 && of(out, .activeEnergy).count == 2)
        #expect(of(out, .heartRate).map(\.value) == [71.5], "the point cut in half is not kept")
    }

    @Test func everyPrefixOfTheExportGivesAPrefixOfItsSamplesAndNeverCrashes() throws {
        let bytes = try Array(Data(contentsOf: URL(fileURLWithPath: Self.fixture("export.json"))))
        let full = HealthCollector()
        try read(bytes, chunk: .max, into: full)
        for length in 0..<bytes.lastIndex(of: UInt8(ascii: "}"))! {
            let out = HealthCollector()
            #expect(throws: FileReadError.self) { try read(Array(bytes[..<length]), into: out) }
            #expect(out.samples == Array(full.samples.prefix(out.samples.count)), "cut at \(length)")
            #expect(out.workouts == Array(full.workouts.prefix(out.workouts.count)), "cut at \(length)")
        }
    }

    @Test func garbageIsAnErrorNotACrash() {
        var generator = SystemRandomNumberGenerator()
        var inputs: [[UInt8]] = (0..<200).map { _ in (0..<Int.random(in: 0..<300, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) } }
        inputs += [
            "", "[]", "{}", "nul", "{\"data\": [1, 2", "{\"data\": {\"metrics\": 5}}", "\u{FEFF}{\"data\":{\"metrics\":[{\"name\":\"step_count\"}]}}",
            "{\"data\":{\"metrics\":[{\"name\":\"step_count\",\"units\":\"count\",\"data\":[{\"date\":5,\"qty\":{}}, 7, [], {\"qty\": 1e999}]}]}}",
            "{\"data\":{\"metrics\":[{\"name\":\"heart_rate\",\"data\":[{\"date\":\"2024-06-01 08:00:00 +0200\",\"Avg\":\"\\u12\"}]}]}}",
            "{\"data\":{\"workouts\":[{\"name\":\"Run\",\"start\":\"2024-06-01 08:00:00 +0200\",\"end\":\"2024-06-01 07:00:00 +0200\",\"distance\":{\"qty\":1,\"units\":\"parsec\"}}]}}",
        ].map { Array($0.utf8) }
        for input in inputs {
            let out = HealthCollector()
            do { try read(input, into: out) } catch {}
            #expect(out.samples.allSatisfy { $0.implausibility == nil })
        }
        let out = HealthCollector()
        try? read(inputs[inputs.count - 3], into: out)
        #expect(out.badCount == 4 && out.samples.isEmpty, "a date that is a number, a point that is a number, one that is an array, and one without a date")
    }

    @Test func detectionLooksForDataAndMetricsOrWorkouts() {
        #expect(HealthAutoExportJSON.detect(name: "x.json", head: Array("{\n  \"data\" : {\n    \"metrics\" : [".utf8)))
        #expect(HealthAutoExportJSON.detect(name: "x.json", head: Array("{\"data\":{\"workouts\":[".utf8)))
        #expect(!HealthAutoExportJSON.detect(name: "x.json", head: Array("[{\"dateTime\":\"06/01/24 00:00:00\",\"value\":\"12\"}]".utf8)))
        #expect(!HealthAutoExportJSON.detect(name: "export.xml", head: Array("<?xml version=\"1.0\"?>".utf8)))
    }
}
