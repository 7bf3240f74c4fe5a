import Foundation
import IngestCore
import Testing

/// Android Health Connect exports, built by tools/healthconnect/make_export.py in the schema
/// AOSP's HealthFitness module writes, read by the real binary and checked at the test node.
/// Every figure is worked out beside it from the script's rows.
@Suite("health adapter: Health Connect exports against the test node", .serialized)
struct HealthConnectTests {
    /// Builds `Health Connect.zip` in the rig's export folder.
    static func makeExport(_ rig: HealthRig, _ extra: [String] = []) throws {
        let made = try runProcess("/usr/bin/python3", [repoRoot + "/tools/healthconnect/make_export.py", rig.exports + "/Health Connect.zip"] + extra)
        try #require(made.status == 0, "make_export.py: \(made.stderr)")
    }

    /// A private TMPDIR, to see that the unpacked database does not outlive the run.
    static func run(_ rig: HealthRig) throws -> (ProcessResult, leftovers: [String]) {
        let tmp = rig.agent.root + "/tmp"
        try FileManager.default.createDirectory(atPath: tmp, withIntermediateDirectories: true)
        let r = try rig.agent.run(["run"], env: ["TZ": "UTC", "TMPDIR": tmp])
        return (r, try FileManager.default.contentsOfDirectory(atPath: tmp))
    }

    @Test func daysSleepAndWorkoutsFromTwoAppsAcrossDSTAndTwoZones_thePreferredAppWins() throws {
        let rig = try HealthRig("Priority=com.google.android.apps.*\n")
        try HealthConnectTests.makeExport(rig)
        let (r, leftovers) = try HealthConnectTests.run(rig)
        #expect(r.status == 0 && !r.stderr.contains("<4>"), "\(r.stderr)")
        #expect(leftovers.isEmpty, "the unpacked database is gone after the run: \(leftovers)")
        // Fit (preferred): 800 over 08:02–08:08 and 300 alone; Fitbit's 1000 over 08:00–08:10
        // counts for the 4 minutes Fit does not cover: 400. Active energy 150 + 50 kcal (calories
        // / 1000); heart rate 70, 95, 60; resting (52 + 56) / 2; RMSSD (40.5 + 45.5) / 2.
        #expect(try rig.day("2024-06-01") == ["date": "2024-06-01", "tz": "+02:00", "steps": 1500, "active_energy_kcal": 200,
                                              "heart_rate": ["min": 60, "avg": 75, "max": 95], "resting_heart_rate": 54, "hrv_ms": 43])
        // The night to 06-02 counts toward the day of waking: light 105 + 195 min, deep 90, REM 60;
        // awake 15 + 15 (awake in bed). The run's 400 kcal are the day's active energy.
        #expect(try rig.day("2024-06-02") == ["date": "2024-06-02", "tz": "+02:00", "active_energy_kcal": 400, "sleep_s": 27000])
        let stored = try rig.stored()
        #expect(stored["sleep:2024-06-01T21:00:00Z"].map { HealthRig.withoutVersion($0["item"]!) } == [
            "key": "sleep:2024-06-01T21:00:00Z", "kind": "sleep", "start": "2024-06-01T23:00:00+02:00", "end": "2024-06-02T07:00:00+02:00",
            "stages": ["deep_s": 5400, "light_s": 18000, "rem_s": 3600, "awake_s": 1800]])
        // The run: Fit's 5000 m plus half of its 1000 m record that ends after it; Fitbit's
        // 4800 m at the same time is another app's. The walk has only total calories: 120 kcal.
        #expect(stored["workout:running:2024-06-02T16:00:00Z"].map { HealthRig.withoutVersion($0["item"]!) } == [
            "key": "workout:running:2024-06-02T16:00:00Z", "kind": "workout", "activity": "running",
            "start": "2024-06-02T18:00:00+02:00", "end": "2024-06-02T18:45:00+02:00", "distance_m": 5500, "energy_kcal": 400])
        #expect(stored["workout:walking:2024-06-02T10:00:00Z"].map { HealthRig.withoutVersion($0["item"]!) } == [
            "key": "workout:walking:2024-06-02T10:00:00Z", "kind": "workout", "activity": "walking",
            "start": "2024-06-02T12:00:00+02:00", "end": "2024-06-02T12:30:00+02:00", "energy_kcal": 120])
        // Spring forward: 100 (00:30 +01:00, still 03-30 in UTC) + 200 + 300 (03:10 +02:00); 50 at
        // 04-01 00:30 +02:00 is 03-31 in UTC but 04-01 where it was walked.
        #expect(try rig.day("2024-03-31") == ["date": "2024-03-31", "tz": "+01:00", "steps": 600])
        #expect(try rig.day("2024-04-01") == ["date": "2024-04-01", "tz": "+02:00", "steps": 50])
        // Berlin to New York: 1000 at 08:00 +02:00, 200 and 500 (23:30 −04:00, 07-11 in UTC) on 07-10.
        #expect(try rig.day("2024-07-10") == ["date": "2024-07-10", "tz": "-04:00", "steps": 1700])
        #expect(try rig.day("2024-07-11") == nil)
        #expect(stored.count == 8, "five days, a night, two workouts: \(stored.keys.sorted())")

        // Without the priority line, sources rank by name: com.fitbit… first, so its 1000 counts
        // whole, Fit's 800 inside it not at all, and Fit's 300 alone: 1300.
        let byName = try HealthRig()
        try HealthConnectTests.makeExport(byName)
        #expect(try HealthConnectTests.run(byName).0.status == 0)
        #expect(try byName.day("2024-06-01")?["steps"] == 1300)
    }

    @Test func aDatabaseOfAnotherSchemaIsOneWarningAndNothingElse() throws {
        let rig = try HealthRig()
        try HealthConnectTests.makeExport(rig, ["--not-hc"])
        let (r, leftovers) = try HealthConnectTests.run(rig)
        #expect(r.status == 0, "\(r.stderr)")
        let warnings = r.stderr.split(separator: "\n").filter { $0.hasPrefix("<4>") }
        #expect(warnings.count == 1 && warnings.first?.contains("Health Connect.zip") == true
                && warnings.first?.contains("application_info_table") == true, "\(r.stderr)")
        #expect(leftovers.isEmpty)
        #expect(try rig.stored().isEmpty)
    }
}
