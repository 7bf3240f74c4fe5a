import Foundation
import Testing
@testable import Adapters

/// Health Auto Export CSV against a hand-written export with a BOM, CRLF, kJ, a quoted number,
/// an unknown column, a negative value, a bad date and a short row.
struct HealthAutoExportCSVTests {
    static let berlin = HealthSettings(timeZone: ZoneRules(named: "Europe/Berlin")!)

    func read() throws -> HealthCollector {
        let out = HealthCollector()
        try HealthAutoExportCSV.read(HealthInput(path: HealthAutoExportJSONTests.fixture("export.csv")), Self.berlin, into: out)
        return out
    }

    @Test func rowsBecomeSamplesInTheConfiguredZone() throws {
        let out = try read()
        let source = "Health Auto Export"
        // 2024-06-01 08:00 in Berlin (CEST) is 06:00 UTC.
        #expect(Array(out.samples.prefix(4)) == [
            HealthSample(kind: .activeEnergy, start: 1_717_221_600, end: 1_717_221_600, offset: 7200, value: 418.4 / 4.184, source: source),
            HealthSample(kind: .steps, start: 1_717_221_600, end: 1_717_221_600, offset: 7200, value: 812, source: source),
            HealthSample(kind: .heartRate, start: 1_717_221_600, end: 1_717_221_600, offset: 7200, value: 71.5, source: source, low: 62, high: 88),
            HealthSample(kind: .steps, start: 1_717_225_200, end: 1_717_225_200, offset: 7200, value: 1200, source: source),
        ])
        // 2 June 00:00 CEST: resting HR, HRV and the night, stages end to end (the total is given,
        // so Asleep is the unspecified part), in bed beside them.
        let night = out.samples.filter { $0.start == 1_717_279_200 }
        #expect(night.map(\.kind) == [.restingHeartRate, .hrv, .sleep(.core), .sleep(.inBed)])
        let sleep = out.samples.filter { if case .sleep(let stage) = $0.kind { stage != .inBed } else { false } }
        #expect(sleep.map(\.kind) == [.sleep(.core), .sleep(.deep), .sleep(.rem), .sleep(.asleep)])
        #expect(sleep.map(\.end) == [1_717_293_600, 1_717_299_000, 1_717_304_400, 1_717_306_200])
        // A written offset wins over the zone: 13:00 +0000.
        #expect(out.samples.last == HealthSample(kind: .steps, start: 1_717_333_200, end: 1_717_333_200, offset: 0, value: 250, source: source))
        #expect(out.notes == ["hae-csv: columns not read: Flights Climbed (count)"])
    }

    @Test func badRowsAreSkippedAndTheFirstIsNamed() throws {
        let out = try read()
        // Line 5: -5 steps (the whole row goes, its 10 kcal too); line 6: 2024-06-0x; line 7: 14 fields.
        #expect(out.badCount == 3)
        #expect(out.firstBad == "line 5: negative value -5.0")
        #expect(!out.samples.contains { $0.start == 1_717_315_200 })
    }

    /// The file is read as a stream: one cut inside its last row keeps every sample before it.
    @Test func aFileCutOffKeepsWhatCameBeforeTheCut() throws {
        let whole = try read()
        var bytes = try Data(contentsOf: URL(fileURLWithPath: HealthAutoExportJSONTests.fixture("export.csv")))
        bytes.removeLast(8)
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("hae-cut-\(getpid()).csv").path
        defer { unlink(path) }
        try bytes.write(to: URL(fileURLWithPath: path))
        let cut = HealthCollector()
        try HealthAutoExportCSV.read(HealthInput(path: path), Self.berlin, into: cut)
        #expect(cut.samples == Array(whole.samples.dropLast()), "the last row, 250 steps, lost its end")
        #expect(cut.badCount == whole.badCount + 1)
    }

    @Test func theExportRollsUpToHandComputedDays() throws {
        let days = DayRollup(priority: []).days(try read().samples)
        #expect(days.map(\.date) == ["2024-06-01", "2024-06-02"])
        #expect(days[0].steps == 2012 && abs((days[0].activeEnergy ?? 0) - 100) < 1e-9 && days[0].heartRate?.avg == 71.5)
        // 250 steps at 13:00 UTC; the 41.84 kJ row is skipped for its -5 steps; 4 + 1.5 + 1.5 + 0.5 h asleep.
        #expect(days[1].steps == 250 && days[1].activeEnergy == nil)
        #expect(days[1].restingHeartRate == 54 && days[1].hrv == 42 && days[1].sleepSeconds == 27_000)
        #expect(days.map(\.timeZone) == ["+02:00", "+02:00"])
    }

    @Test func headersAreReadByNameUnitAndPart() {
        #expect(HealthAutoExportCSV.meaning(of: "Active Energy (kJ)") == .quantity(.activeEnergy, scale: 1 / 4.184))
        #expect(HealthAutoExportCSV.meaning(of: "Heart Rate [Min] (count/min)") == .heartRate(.min))
        #expect(HealthAutoExportCSV.meaning(of: "Sleep Analysis [In Bed] (hr)") == .sleep(.inBed, secondsPerUnit: 3600))
        #expect(HealthAutoExportCSV.meaning(of: "Sleep Analysis [REM] (min)") == .sleep(.rem, secondsPerUnit: 60))
        #expect(HealthAutoExportCSV.meaning(of: "Active Energy (mmHg)") == nil)
        #expect(HealthAutoExportCSV.meaning(of: "Blood Oxygen Saturation (%)") == nil)
        #expect(HealthAutoExportCSV.detect(name: "a.csv", head: Array("Date,Step Count (count)\n2024-06-01,5".utf8)))
        #expect(!HealthAutoExportCSV.detect(name: "a.csv", head: Array("Date,Steps\n2024-06-01,5".utf8)))
        #expect(!HealthAutoExportCSV.detect(name: "a.json", head: Array("{\"data\":{}}".utf8)))
    }
}
