import Foundation
import IngestCore
import Testing
@testable import Adapters

/// A Gadgetbridge export built from `fixtures/health/gadgetbridge/gadgetbridge.sql` (two device
/// families around Berlin's switch to summer time), plus garbage and a locked database.
struct GadgetbridgeDatabaseTests {
    static let berlin = HealthSettings(timeZone: ZoneRules(named: "Europe/Berlin")!)
    static let t = 1_711_843_200.0                    // 2024-03-31 00:00 UTC

    /// A fresh temporary folder, removed after `body`.
    func inTemporaryFolder(_ body: (String) throws -> Void) throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("gadgetbridge-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try body(dir)
    }

    func buildFixture(at path: String) throws {
        let sql = try String(contentsOfFile: FitbitExportJSONTests.fixture("gadgetbridge/gadgetbridge.sql"), encoding: .utf8)
        let db = try SQLiteDatabase(path: path)
        try db.execute(sql)
        db.close()
    }

    func read(_ path: String) throws -> HealthCollector {
        let out = HealthCollector()
        try GadgetbridgeDatabase.read(HealthInput(path: path), Self.berlin, into: out)
        return out
    }

    func sample(_ kind: HealthSample.Kind, _ start: Double, _ end: Double, _ offset: Int, _ value: Double, _ device: String) -> HealthSample {
        HealthSample(kind: kind, start: start, end: end, offset: offset, value: value, source: "Gadgetbridge: " + device)
    }

    @Test func samplesFromEveryFamilyTableWithSleepRunsMergedAndSentinelsDropped() throws {
        try inTemporaryFolder { dir in
            let path = dir + "/Gadgetbridge.db"
            try buildFixture(at: path)
            let head = Array(try Data(contentsOf: URL(fileURLWithPath: path)).prefix(100))
            #expect(GadgetbridgeDatabase.detect(name: "Gadgetbridge", head: head))
            let out = try read(path)
            let t = Self.t, mi = "Mi Band 6", xiaomi = "Xiaomi Smart Band 8"
            #expect(out.samples == [
                // MI_BAND_ACTIVITY_SAMPLE, device 1: 55 bpm at 00:58 UTC (CET); 255, 0, -1 and 250 are no reading.
                sample(.heartRate, t + 3480, t + 3480, 3600, 55, mi),
                // Light sleep 00:58–01:00 UTC (kind 9, then 0 "same as before"), ended by deep sleep.
                sample(.sleep(.core), t + 3480, t + 3600, 3600, 120, mi),
                sample(.heartRate, t + 3720, t + 3720, 7200, 54, mi),
                sample(.steps, t + 3780, t + 3840, 7200, 30, mi),
                sample(.heartRate, t + 3780, t + 3780, 7200, 80, mi),
                // Deep 01:00–01:03 UTC (11, 27 & 0xF, then 10 "ignore"), ended by activity.
                sample(.sleep(.deep), t + 3600, t + 3780, 7200, 180, mi),
                sample(.steps, t + 3900, t + 3960, 7200, 12, mi),
                // XIAOMI_ACTIVITY_SAMPLE, device 2, named by DEVICE.NAME (not its alias).
                sample(.steps, t + 3780, t + 3840, 7200, 50, xiaomi),
                sample(.heartRate, t + 3780, t + 3780, 7200, 90, xiaomi),
                sample(.steps, t + 3840, t + 3900, 7200, 20, xiaomi),
                sample(.steps, t + 7200, t + 7260, 7200, 100, xiaomi),
                // XIAOMI_SLEEP_STAGE_SAMPLE: each mark lasts to the next; 0 only ends the last.
                sample(.sleep(.core), t - 3600, t - 1800, 3600, 1800, xiaomi),
                sample(.sleep(.deep), t - 1800, t, 3600, 1800, xiaomi),
                sample(.sleep(.awake), t, t + 600, 3600, 600, xiaomi),
                sample(.sleep(.rem), t + 600, t + 1800, 3600, 1200, xiaomi),
            ])
            #expect(out.badCount == 1)
            #expect(out.firstBad == "line 7: MI_BAND_ACTIVITY_SAMPLE: STEPS x or HEART_RATE 82 is not a whole number")
            #expect(out.notes.isEmpty)

            let miFirst = DayRollup(priority: ["*Mi Band*"]).days(out.samples)
            #expect(miFirst.map(\.date) == ["2024-03-31"])
            // Mi Band 30 + 12; the Xiaomi's 50 falls in the Mi Band's minute, its 20 and 100 do not.
            #expect(miFirst[0].steps == 162)
            #expect(DayRollup(priority: ["*Xiaomi*"]).days(out.samples)[0].steps == 182, "50 + 20 + 100, and the Mi Band's 12")
            #expect(miFirst[0].sleepSeconds == 5100, "120 + 180 + 1800 + 1800 + 1200: awake is not sleep")
            #expect(miFirst[0].heartRate?.min == 54 && miFirst[0].heartRate?.max == 90)
        }
    }

    @Test func aDatabaseWithoutADeviceTableIsNotGadgetbridge() throws {
        try inTemporaryFolder { dir in
            let path = dir + "/other.db"
            let db = try SQLiteDatabase(path: path)
            try db.execute("CREATE TABLE notes (body TEXT)")
            db.close()
            let error = #expect(throws: FileReadError.self) { try read(path) }
            #expect(error?.description == "an SQLite database without Gadgetbridge's DEVICE table")
        }
    }

    @Test func aTableWithoutTheNeededColumnsIsNotedAndSkipped() throws {
        try inTemporaryFolder { dir in
            let path = dir + "/Gadgetbridge.db"
            try buildFixture(at: path)
            let db = try SQLiteDatabase(path: path)
            try db.execute("""
                CREATE TABLE "PEBBLE_HEALTH_ACTIVITY_SAMPLE" ("TIMESTAMP" INTEGER NOT NULL, "DEVICE_ID" INTEGER NOT NULL, "RAW_PEBBLE_HEALTH_DATA" BLOB);
                CREATE TABLE "HUAWEI_SLEEP_STAGE_SAMPLE" ("TIMESTAMP" INTEGER NOT NULL, "DEVICE_ID" INTEGER NOT NULL, "STAGE" INTEGER);
                """)
            db.close()
            let out = try read(path)
            #expect(out.notes == ["HUAWEI_SLEEP_STAGE_SAMPLE: sleep stage codes not known, skipped",
                                  "PEBBLE_HEALTH_ACTIVITY_SAMPLE: no steps or heart rate, skipped"])
            #expect(out.samples.count == 15)
        }
    }

    @Test func garbageBytesAreOneLineNotACrash() throws {
        try inTemporaryFolder { dir in
            let path = dir + "/Gadgetbridge.db"
            try Data(Array("SQLite format 3\0".utf8) + (0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 37) }).write(to: URL(fileURLWithPath: path))
            let error = #expect(throws: FileReadError.self) { try read(path) }
            let text = error?.description ?? ""
            #expect(text.hasPrefix("not a readable Gadgetbridge database ("), "\(text)")
            #expect(!text.contains("\n"))
        }
    }

    @Test func aDatabaseLockedByAnotherConnectionFailsFastWithOneLine() throws {
        try inTemporaryFolder { dir in
            let path = dir + "/Gadgetbridge.db"
            try buildFixture(at: path)
            let holder = try SQLiteDatabase(path: path)
            try holder.execute("BEGIN EXCLUSIVE")
            defer { try? holder.execute("ROLLBACK"); holder.close() }
            let clock = ContinuousClock()
            let started = clock.now
            let error = #expect(throws: FileReadError.self) { try read(path) }
            #expect(clock.now - started < .seconds(3), "the short busy timeout, not the state store's 15 s")
            #expect(error?.description.hasPrefix("the Gadgetbridge database is locked by another program (") == true, "\(String(describing: error))")
            #expect(error?.transient == true, "a locked database is tried again on the next scan")
        }
    }

    @Test func aMissingFileIsOneLine() {
        #expect(throws: FileReadError.self) { try read("/nonexistent/Gadgetbridge.db") }
    }
}
