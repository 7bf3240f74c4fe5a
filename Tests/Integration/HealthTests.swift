import Foundation
import IngestCore
import Testing

/// The health adapter end to end: hand-written exports in a temp folder, the real binary, the
/// real test node, and what the node then holds. Every figure below is computed by hand in the
/// comment beside it.
@Suite("health adapter against the test node", .serialized)
struct HealthTests {
    // MARK: - Same export twice, then an overlapping newer one

    @Test func theSameExportTwiceSendsEachDayOnce_aNewerOverlappingExportSendsOnlyTheChangedAndNewDays() throws {
        let rig = try HealthRig()
        let v1 = [
            AppleExport.steps(AppleExport.watch, "2024-06-01 09:00:00 +0200", "2024-06-01 09:30:00 +0200", 1000),
            AppleExport.steps(AppleExport.watch, "2024-06-01 12:00:00 +0200", "2024-06-01 12:30:00 +0200", 2000),
            AppleExport.steps(AppleExport.watch, "2024-06-02 10:00:00 +0200", "2024-06-02 11:00:00 +0200", 4000),
            AppleExport.steps(AppleExport.watch, "2024-06-03 07:00:00 +0200", "2024-06-03 07:10:00 +0200", 500),
        ]
        try rig.put("export.xml", AppleExport.xml(v1))
        try rig.run()
        #expect(try rig.counts() == HealthRig.Counts(accepted: 3, duplicates: 0, receipts: 3, live: 3))
        #expect(try rig.day("2024-06-01") == ["date": "2024-06-01", "tz": "+02:00", "steps": 3000])   // 1000 + 2000
        #expect(try rig.day("2024-06-02") == ["date": "2024-06-02", "tz": "+02:00", "steps": 4000])
        #expect(try rig.day("2024-06-03") == ["date": "2024-06-03", "tz": "+02:00", "steps": 500])
        let first = try rig.stored()

        // Unchanged: nothing is sent.
        try rig.run()
        #expect(try rig.counts() == HealthRig.Counts(accepted: 3, duplicates: 0, receipts: 3, live: 3))
        // The same export written again (new inode and mtime, so it is read again): still nothing.
        try rig.put("export.xml", AppleExport.xml(v1))
        try rig.run()
        #expect(try rig.counts() == HealthRig.Counts(accepted: 3, duplicates: 0, receipts: 3, live: 3))

        // A newer export repeats every old sample and adds a week's tail: 700 more steps on
        // 06-03 (500 → 1200) and a new day 06-04 (900).
        try rig.put("export.xml", AppleExport.xml(v1 + [
            AppleExport.steps(AppleExport.watch, "2024-06-03 18:00:00 +0200", "2024-06-03 18:20:00 +0200", 700),
            AppleExport.steps(AppleExport.watch, "2024-06-04 08:00:00 +0200", "2024-06-04 08:15:00 +0200", 900),
        ]))
        try rig.run()
        #expect(try rig.counts() == HealthRig.Counts(accepted: 5, duplicates: 0, receipts: 5, live: 4),
                "one new version of 06-03 and 06-04 once; nothing else is sent")
        let now = try rig.stored()
        #expect(try rig.day("2024-06-03") == ["date": "2024-06-03", "tz": "+02:00", "steps": 1200])
        #expect(try rig.day("2024-06-04") == ["date": "2024-06-04", "tz": "+02:00", "steps": 900])
        #expect(now["day:2024-06-03"]?["accepts"] == 2 && now["day:2024-06-03"]?["receipts"] == 2)
        #expect(now["day:2024-06-03"]?["version"] != first["day:2024-06-03"]?["version"])
        #expect(now["day:2024-06-04"]?["accepts"] == 1 && now["day:2024-06-04"]?["receipts"] == 1)
        for date in ["2024-06-01", "2024-06-02"] {
            #expect(now["day:\(date)"]?["receipts"] == 1, "\(date) is unchanged and never re-sent")
            #expect(now["day:\(date)"]?["version"] == first["day:\(date)"]?["version"])
        }
    }

    // MARK: - Watch and phone, DST, two time zones

    /// 2024-06-01 (+02:00): watch 812 over 08:00–08:10, phone 640 over 08:01–08:09 (inside it),
    /// phone 300 over 10:00–10:05 (alone). Heart rate 71, 90, 60; resting 52; HRV 45.5 and 38.5.
    /// 2024-03-31, Berlin's spring-forward day: 100 at 00:30 +01:00 (still 03-30 in UTC), 200 at
    /// 01:50 +01:00, 300 at 03:10 +02:00, 250 at 12:00, 400 at 23:50 +02:00; 2024-04-01 00:30
    /// +02:00 (03-31 in UTC): 50. 2024-07-10, a flight from Berlin to New York: 1000 at 08:00
    /// +02:00, 200 at 18:00 −04:00, 500 at 23:30 −04:00 (07-11 in UTC); 07-11: 600 at 09:00 −04:00.
    /// And a spreadsheet in Europe/Berlin without offsets across the fall-back day 2024-10-27:
    /// 100 at 00:30 (+02:00), 50 at 12:00 and 200 at 23:30 (+01:00); 400 at 10-28 00:30.
    static let travelExport = AppleExport.xml([
        AppleExport.steps(AppleExport.watch, "2024-06-01 08:00:00 +0200", "2024-06-01 08:10:00 +0200", 812),
        AppleExport.steps(AppleExport.phone, "2024-06-01 08:01:00 +0200", "2024-06-01 08:09:00 +0200", 640),
        AppleExport.steps(AppleExport.phone, "2024-06-01 10:00:00 +0200", "2024-06-01 10:05:00 +0200", 300),
        AppleExport.heartRate("2024-06-01 08:05:03 +0200", 71),
        AppleExport.heartRate("2024-06-01 12:00:00 +0200", 90),
        AppleExport.heartRate("2024-06-01 20:00:00 +0200", 60),
        AppleExport.record("HKQuantityTypeIdentifierRestingHeartRate", AppleExport.watch, "2024-06-01 00:00:00 +0200",
                           "2024-06-01 23:59:00 +0200", value: "52", unit: "count/min"),
        AppleExport.record("HKQuantityTypeIdentifierHeartRateVariabilitySDNN", AppleExport.watch, "2024-06-01 03:00:00 +0200",
                           "2024-06-01 03:01:00 +0200", value: "45.5", unit: "ms"),
        AppleExport.record("HKQuantityTypeIdentifierHeartRateVariabilitySDNN", AppleExport.watch, "2024-06-01 04:00:00 +0200",
                           "2024-06-01 04:01:00 +0200", value: "38.5", unit: "ms"),
        AppleExport.steps(AppleExport.watch, "2024-03-31 00:30:00 +0100", "2024-03-31 00:40:00 +0100", 100),
        AppleExport.steps(AppleExport.watch, "2024-03-31 01:50:00 +0100", "2024-03-31 01:59:00 +0100", 200),
        AppleExport.steps(AppleExport.watch, "2024-03-31 03:10:00 +0200", "2024-03-31 03:20:00 +0200", 300),
        AppleExport.steps(AppleExport.watch, "2024-03-31 12:00:00 +0200", "2024-03-31 12:10:00 +0200", 250),
        AppleExport.steps(AppleExport.watch, "2024-03-31 23:50:00 +0200", "2024-03-31 23:59:00 +0200", 400),
        AppleExport.steps(AppleExport.watch, "2024-04-01 00:30:00 +0200", "2024-04-01 00:40:00 +0200", 50),
        AppleExport.steps(AppleExport.watch, "2024-07-10 08:00:00 +0200", "2024-07-10 08:20:00 +0200", 1000),
        AppleExport.steps(AppleExport.watch, "2024-07-10 18:00:00 -0400", "2024-07-10 18:10:00 -0400", 200),
        AppleExport.steps(AppleExport.watch, "2024-07-10 23:30:00 -0400", "2024-07-10 23:40:00 -0400", 500),
        AppleExport.steps(AppleExport.watch, "2024-07-11 09:00:00 -0400", "2024-07-11 09:10:00 -0400", 600),
    ])
    static let fallBackCSV = "Date,Steps\n2024-10-27 00:30,100\n2024-10-27 12:00,50\n2024-10-27 23:30,200\n2024-10-28 00:30,400\n"
    static let csvColumns = "Column.steps=Steps\nDateColumn=Date\nDateFormat=%Y-%m-%d %H:%M\nTimeZone=Europe/Berlin\n"

    @Test func overlappingWatchAndPhone_aDSTDay_andTwoTimeZones_giveTheHandComputedDays() throws {
        let rig = try HealthRig()
        try rig.put("export.xml", Self.travelExport)
        try rig.run()
        #expect(try rig.counts() == HealthRig.Counts(accepted: 5, duplicates: 0, receipts: 5, live: 5))
        // Watch first: the phone's 640 lies inside the watch's interval and is not counted; 812 + 300.
        #expect(try rig.day("2024-06-01") == ["date": "2024-06-01", "tz": "+02:00", "steps": 1112, "resting_heart_rate": 52,
                                             "heart_rate": ["min": 60, "avg": 73.7, "max": 90], "hrv_ms": 42])
        // 100 + 200 + 300 + 250 + 400; three of five samples in +02:00.
        #expect(try rig.day("2024-03-31") == ["date": "2024-03-31", "tz": "+02:00", "steps": 1250])
        #expect(try rig.day("2024-04-01") == ["date": "2024-04-01", "tz": "+02:00", "steps": 50])
        // 1000 + 200 + 500; two of three in −04:00.
        #expect(try rig.day("2024-07-10") == ["date": "2024-07-10", "tz": "-04:00", "steps": 1700])
        #expect(try rig.day("2024-07-11") == ["date": "2024-07-11", "tz": "-04:00", "steps": 600])
        #expect(!(try rig.stored().keys.contains("day:2024-03-30")), "no day by UTC")

        // The phone first: 640 + 300, and the watch's 812 only for the 2 of its 10 minutes the
        // phone does not cover: 162.4; 1102.4 → 1102. The other days have one source each.
        let phoneFirst = try HealthRig("Priority=*iPhone*\nPriority=*Watch*\n")
        try phoneFirst.put("export.xml", Self.travelExport)
        try phoneFirst.run()
        #expect(try phoneFirst.day("2024-06-01")?["steps"] == 1102)
        #expect(try phoneFirst.day("2024-03-31")?["steps"] == 1250 && phoneFirst.day("2024-07-10")?["steps"] == 1700)
    }

    /// A spreadsheet's wall times (no offsets) in `TimeZone=Europe/Berlin` across the fall-back day.
    @Test func aSpreadsheetWithoutOffsetsInEuropeBerlin_putsTheFallBackDayWhereItWasLived() throws {
        let rig = try HealthRig(Self.csvColumns)
        try rig.put("steps.csv", Self.fallBackCSV)
        try rig.run()
        // 100 + 50 + 200; two of three in +01:00. 10-28 00:30 is 10-27 23:30 in UTC.
        #expect(try rig.day("2024-10-27") == ["date": "2024-10-27", "tz": "+01:00", "steps": 350])
        #expect(try rig.day("2024-10-28") == ["date": "2024-10-28", "tz": "+01:00", "steps": 400])
        let keys = try rig.stored().keys.sorted()
        #expect(keys == ["day:2024-10-27", "day:2024-10-28"], "no day by UTC")
    }

    // MARK: - Two formats, one day

    @Test func oneDayFromAnAppleExportAndAHealthAutoExportJSON_isOneItemWithBoth() throws {
        let rig = try HealthRig()
        // Apple: the watch's 500 steps over 08:00–08:10, a heart rate of 90 at 09:00.
        try rig.put("export.xml", AppleExport.xml([
            AppleExport.steps(AppleExport.watch, "2024-06-05 08:00:00 +0200", "2024-06-05 08:10:00 +0200", 500),
            AppleExport.heartRate("2024-06-05 09:00:00 +0200", 90),
        ]))
        // Health Auto Export: the phone's 300 steps at 14:00, a heart-rate minute of 60/70/80.
        try rig.put("HealthAutoExport-2024-06-05.json", """
            {"data": {"metrics": [
              {"name": "step_count", "units": "count", "data": [
                {"date": "2024-06-05 14:00:00 +0200", "qty": 300, "source": "Anna’s iPhone"}]},
              {"name": "heart_rate", "units": "count/min", "data": [
                {"date": "2024-06-05 14:00:00 +0200", "Min": 60, "Avg": 70, "Max": 80, "source": "Anna’s iPhone"}]}
            ], "workouts": []}}
            """)
        try rig.run()
        #expect(try rig.counts() == HealthRig.Counts(accepted: 1, duplicates: 0, receipts: 1, live: 1), "the day is sent once")
        // 500 + 300; heart rate min 60 (HAE), avg (90 + 70) / 2, max 90 (Apple).
        #expect(try rig.day("2024-06-05") == ["date": "2024-06-05", "tz": "+02:00", "steps": 800,
                                             "heart_rate": ["min": 60, "avg": 80, "max": 90]])
    }

    // MARK: - Zip

    /// 40 days of hourly watch steps: large enough that a zip cut in half has inflated many days.
    static let monthExport: String = {
        var records: [String] = []
        for day in 0..<40 {
            let (month, dom) = day < 30 ? (6, day + 1) : (7, day - 29)                      // June 1 to July 10
            let ymd = "2024-0\(month)-" + (dom < 10 ? "0" : "") + "\(dom)"
            for hour in 6..<22 {
                let h = (hour < 10 ? "0" : "") + "\(hour)"
                records.append(AppleExport.steps(AppleExport.watch, "\(ymd) \(h):00:00 +0200", "\(ymd) \(h):30:00 +0200", 100 + (day * 24 + hour) % 97))
            }
        }
        return AppleExport.xml(records)
    }()

    @Test func aZippedExportGivesWhatThePlainFileGives_aCutZipKeepsWhatCameBeforeTheCut() throws {
        let plain = try AgentSandbox(), zipped = try AgentSandbox()
        for agent in [plain, zipped] { try FileManager.default.createDirectory(atPath: agent.root + "/exports", withIntermediateDirectories: true) }
        try Self.monthExport.write(toFile: plain.root + "/exports/export.xml", atomically: true, encoding: .utf8)
        try zipExport(plain.root + "/exports/export.xml", to: zipped.root + "/exports/export.zip")
        var printed: [[String]] = []
        for agent in [plain, zipped] {
            try agent.write("adapters.d/health.conf", "[Adapter]\nType=health\nPath=\(agent.root)/exports\n")
            let r = try agent.run(["run", "--dry-run"])
            #expect(r.status == 0 && !r.stderr.contains("export."), "\(r.stderr)")
            printed.append(r.stdout.split(separator: "\n").map(String.init).sorted())
        }
        #expect(printed[0].count == 40)
        #expect(printed[1] == printed[0], "the zip's items are the plain file's, byte for byte")
        let full = Dictionary(uniqueKeysWithValues: printed[0].compactMap { JSONValue.parse(Array($0.utf8))?["item"] }
            .map { ($0["key"]?.stringValue ?? "", HealthRig.normalized($0)) })

        // The zip cut off half-way, as a stopped download leaves it.
        let rig = try HealthRig()
        let whole = try Data(contentsOf: URL(fileURLWithPath: zipped.root + "/exports/export.zip"))
        try whole.prefix(whole.count / 2).write(to: URL(fileURLWithPath: rig.exports + "/export.zip"))
        let cut = try rig.run()
        let warnings = cut.stderr.split(separator: "\n").filter { $0.contains(rig.exports + "/export.zip") }
        #expect(warnings.count == 1 && warnings.first?.contains("cut off") == true, "\(cut.stderr)")
        let arrived = try rig.stored()
        #expect(arrived.count > 5 && arrived.count < 40, "\(arrived.count) days before the cut")
        #expect(Set(arrived.keys).isSubset(of: Set(full.keys)))
        // Every day but the last one read (which the cut may have split) is whole.
        let lastRead = try #require(arrived.keys.max())
        for (key, record) in arrived where key != lastRead {
            #expect(HealthRig.normalized(record["item"] ?? .null) == full[key], "\(key)")
        }

        // The whole zip later: the rest arrives, and every day ends as the plain file has it.
        try FileManager.default.removeItem(atPath: rig.exports + "/export.zip")
        try whole.write(to: URL(fileURLWithPath: rig.exports + "/export.zip"))
        let again = try rig.run()
        #expect(!again.stderr.contains("export.zip"), "\(again.stderr)")
        let after = try rig.stored()
        #expect(after.count == 40)
        for (key, record) in after { #expect(HealthRig.normalized(record["item"] ?? .null) == full[key], "\(key)") }
        #expect(try rig.counts().accepted <= 41, "at most the split day is sent twice")
    }

    // MARK: - Bad input

    @Test func aCutOffExportXMLKeepsItsRecordsBeforeTheCutWithOneWarning() throws {
        let rig = try HealthRig()
        let text = AppleExport.xml([
            AppleExport.steps(AppleExport.watch, "2024-06-01 08:00:00 +0200", "2024-06-01 08:10:00 +0200", 812),
            AppleExport.steps(AppleExport.watch, "2024-06-02 08:00:00 +0200", "2024-06-02 08:10:00 +0200", 700),
        ])
        let cut = try #require(text.range(of: "2024-06-02 08:10:00"))
        try rig.put("export.xml", String(text[..<cut.lowerBound]))
        let r = try rig.run()
        #expect(try rig.stored().keys.sorted() == ["day:2024-06-01"])
        #expect(try rig.day("2024-06-01")?["steps"] == 812)
        let warnings = r.stderr.split(separator: "\n").filter { $0.contains(rig.exports + "/export.xml") }
        #expect(warnings.count == 1, "a cut-off export says so once: \(r.stderr)")
    }

    // MARK: - A Gadgetbridge database another program holds locked

    @Test func aLockedGadgetbridgeDatabaseWarnsOnceAndIsReadOnTheNextRun() throws {
        let rig = try HealthRig()
        let path = rig.exports + "/Gadgetbridge"
        let db = try SQLiteDatabase(path: path)
        try db.execute(String(contentsOfFile: repoRoot + "/fixtures/health/gadgetbridge/gadgetbridge.sql", encoding: .utf8))
        try db.execute("BEGIN EXCLUSIVE")                    // Gadgetbridge (or a sync tool) writing it
        let locked = try rig.run()
        let warnings = locked.stderr.split(separator: "\n").filter { $0.contains(path) }
        #expect(warnings.count == 1 && warnings.first?.contains("locked") == true, "\(locked.stderr)")
        #expect(try rig.stored().isEmpty)
        try db.execute("ROLLBACK")
        db.close()
        let free = try rig.run()
        #expect(!free.stderr.contains("locked"), "\(free.stderr)")
        #expect(!(try rig.stored().isEmpty), "the database was not remembered as read while it was locked")
    }

    // MARK: - Workouts and sleep

    /// A night from 22:50 in bed to 06:40: core 23:00–01:00, deep 01:00–02:00, REM 02:00–03:00,
    /// awake 03:00–03:10, core 03:10–06:30; a run with iOS 16 WorkoutStatistics and a ride with
    /// the older total attributes.
    static let nightAndWorkoutsRecords = [
        AppleExport.sleep("InBed", "2024-06-01 22:50:00 +0200", "2024-06-02 06:40:00 +0200"),
        AppleExport.sleep("AsleepCore", "2024-06-01 23:00:00 +0200", "2024-06-02 01:00:00 +0200"),
        AppleExport.sleep("AsleepDeep", "2024-06-02 01:00:00 +0200", "2024-06-02 02:00:00 +0200"),
        AppleExport.sleep("AsleepREM", "2024-06-02 02:00:00 +0200", "2024-06-02 03:00:00 +0200"),
        AppleExport.sleep("Awake", "2024-06-02 03:00:00 +0200", "2024-06-02 03:10:00 +0200"),
        AppleExport.sleep("AsleepCore", "2024-06-02 03:10:00 +0200", "2024-06-02 06:30:00 +0200"),
        """
        <Workout workoutActivityType="HKWorkoutActivityTypeRunning" duration="31.5" durationUnit="min" sourceName="\(AppleExport.watch)" sourceVersion="10.5" device="&lt;&lt;HKDevice: 0x283b1c2d0&gt;, name:Apple Watch&gt;" creationDate="2024-06-02 07:40:00 +0200" startDate="2024-06-02 07:05:00 +0200" endDate="2024-06-02 07:36:30 +0200">
          <MetadataEntry key="HKIndoorWorkout" value="0"/>
          <WorkoutEvent type="HKWorkoutEventTypeSegment" date="2024-06-02 07:05:00 +0200" duration="10" durationUnit="min"/>
          <WorkoutStatistics type="HKQuantityTypeIdentifierDistanceWalkingRunning" startDate="2024-06-02 07:05:00 +0200" endDate="2024-06-02 07:36:30 +0200" sum="5.21" unit="km"/>
          <WorkoutStatistics type="HKQuantityTypeIdentifierActiveEnergyBurned" startDate="2024-06-02 07:05:00 +0200" endDate="2024-06-02 07:36:30 +0200" sum="402.5" unit="kcal"/>
          <WorkoutRoute sourceName="\(AppleExport.watch)" startDate="2024-06-02 07:05:00 +0200" endDate="2024-06-02 07:36:30 +0200">
           <FileReference path="/workout-routes/route_2024-06-02_7.36am.gpx"/>
          </WorkoutRoute>
         </Workout>
        """,
        """
        <Workout workoutActivityType="HKWorkoutActivityTypeCycling" duration="45" durationUnit="min" totalDistance="12.5" totalDistanceUnit="km" totalEnergyBurned="310" totalEnergyBurnedUnit="kcal" sourceName="\(AppleExport.watch)" startDate="2024-06-02 18:00:00 +0200" endDate="2024-06-02 18:45:00 +0200"/>
        """,
    ]
    static let nightAndWorkouts = AppleExport.xml(nightAndWorkoutsRecords)

    @Test func aWorkoutAndANightOfSleepArriveWithStableKeysAndAreNotSentTwice() throws {
        let rig = try HealthRig()
        try rig.put("export.xml", Self.nightAndWorkouts)
        try rig.run()
        #expect(try rig.counts() == HealthRig.Counts(accepted: 4, duplicates: 0, receipts: 4, live: 4))
        let items = try rig.stored().mapValues { HealthRig.withoutVersion($0["item"] ?? .null) }
        #expect(items["sleep:2024-06-01T20:50:00Z"] == [
            "key": "sleep:2024-06-01T20:50:00Z", "kind": "sleep", "start": "2024-06-01T22:50:00+02:00", "end": "2024-06-02T06:40:00+02:00",
            // light: core 2 h + 3 h 20 min
            "stages": ["deep_s": 3600, "light_s": 19_200, "rem_s": 3600, "awake_s": 600],
        ])
        #expect(items["workout:running:2024-06-02T05:05:00Z"] == [
            "key": "workout:running:2024-06-02T05:05:00Z", "kind": "workout", "activity": "running",
            "start": "2024-06-02T07:05:00+02:00", "end": "2024-06-02T07:36:30+02:00", "energy_kcal": 402.5, "distance_m": 5210,
        ])
        #expect(items["workout:cycling:2024-06-02T16:00:00Z"] == [
            "key": "workout:cycling:2024-06-02T16:00:00Z", "kind": "workout", "activity": "cycling",
            "start": "2024-06-02T18:00:00+02:00", "end": "2024-06-02T18:45:00+02:00", "energy_kcal": 310, "distance_m": 12_500,
        ])
        // Asleep (not in bed, not awake): 23:00–03:00 and 03:10–06:30, on the day of waking.
        #expect(try rig.day("2024-06-02") == ["date": "2024-06-02", "tz": "+02:00", "sleep_s": 26_400])

        // Run again, the export written anew, and a second copy of it beside: nothing new.
        try rig.run()
        try rig.put("export.xml", Self.nightAndWorkouts)
        try rig.put("export-copy.xml", Self.nightAndWorkouts)
        try rig.run()
        #expect(try rig.counts() == HealthRig.Counts(accepted: 4, duplicates: 0, receipts: 4, live: 4))
    }

    // MARK: - Privacy and dry-run

    @Test func onlyNodeAPIFieldsLeave_andADryRunPrintsExactlyWhatTheRunSends() throws {
        let rig = try HealthRig()
        let export = AppleExport.xml([
            """
            <Record type="HKQuantityTypeIdentifierBodyMass" sourceName="Withings" unit="kg" startDate="2024-06-01 07:00:00 +0200" endDate="2024-06-01 07:00:00 +0200" value="83.45"/>
            """,
            """
            <Correlation type="HKCorrelationTypeIdentifierBloodPressure" sourceName="Omron" startDate="2024-06-01 07:05:00 +0200" endDate="2024-06-01 07:05:00 +0200">
              <Record type="HKQuantityTypeIdentifierBloodPressureSystolic" sourceName="Omron" unit="mmHg" startDate="2024-06-01 07:05:00 +0200" endDate="2024-06-01 07:05:00 +0200" value="131"/>
             </Correlation>
            """,
            AppleExport.heartRate("2024-06-01 08:05:03 +0200", 71),
        ] + Self.nightAndWorkoutsRecords)
        try rig.put("export.xml", export)

        let dry = try rig.agent.run(["run", "--dry-run"])
        #expect(dry.status == 0, "\(dry.stderr)")
        let printed = dry.stdout.split(separator: "\n").compactMap { JSONValue.parse(Array($0.utf8)) }
        #expect(printed.allSatisfy { $0["endpoint"] == "health" && $0["source"] == "linux-health" })
        #expect(try rig.counts().receipts == 0, "a dry run sends nothing")
        try rig.run()
        let posted = try rig.node.requests().filter { $0["path"] == "/v1/ingest/health" }.compactMap { $0["items"]?.intValue }
        #expect(posted.reduce(0, +) == 5, "day 06-01, day 06-02, a night, two workouts, each sent once")
        let sent = try rig.stored().values.compactMap { $0["item"] }       // the raw JSON the node keeps
        #expect(Set(sent.map { String(decoding: $0.encoded, as: UTF8.self) })
                == Set(printed.map { String(decoding: ($0["item"] ?? .null).encoded, as: UTF8.self) }),
                "the dry run printed exactly what the run sent")

        let allowed: [String: Set<String>] = [
            "day": ["key", "version", "kind", "date", "tz", "steps", "active_energy_kcal", "resting_heart_rate", "heart_rate", "hrv_ms", "sleep_s"],
            "workout": ["key", "version", "kind", "activity", "start", "end", "energy_kcal", "distance_m"],
            "sleep": ["key", "version", "kind", "start", "end", "stages"],
        ]
        for item in sent {
            guard case .object(let fields) = item, let kind = item["kind"]?.stringValue, let names = allowed[kind] else {
                Issue.record("not a health item: \(item)"); continue
            }
            #expect(Set(fields.keys).isSubset(of: names), "\(kind) has \(Set(fields.keys).subtracting(names))")
            if case .object(let hr)? = item["heart_rate"] { #expect(Set(hr.keys) == ["min", "avg", "max"]) }
            if case .object(let stages)? = item["stages"] { #expect(Set(stages.keys) == ["deep_s", "light_s", "rem_s", "awake_s"]) }
            let raw = String(decoding: item.encoded, as: UTF8.self)
            for leak in ["Anna", "Watch", "iPhone", "Withings", "Omron", "HKDevice", "0x283b1c2d0", "83.45", "mmHg", "1984-02-29", "route_", "Metadata"] {
                #expect(!raw.contains(leak), "\(leak) reached the node: \(raw)")
            }
        }
        let after = try rig.agent.run(["run", "--dry-run"])
        #expect(after.stdout.isEmpty, "nothing is left to send: \(after.stdout)")
    }

    // MARK: - Resync

    @Test func aResyncSendsEveryItemAgainAsDuplicatesAndLosesNothing() throws {
        let rig = try HealthRig()
        try rig.put("export.xml", Self.travelExport)
        try rig.put("night.xml", Self.nightAndWorkouts)
        try rig.run()
        let before = try rig.stored()
        #expect(before.count == 9, "5 days, day 06-02, a night, two workouts")
        #expect(try rig.counts() == HealthRig.Counts(accepted: 9, duplicates: 0, receipts: 9, live: 9))

        let r = try rig.agent.run(["resync", "health"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try rig.counts() == HealthRig.Counts(accepted: 9, duplicates: 9, receipts: 18, live: 9))
        let after = try rig.stored()
        #expect(Set(after.keys) == Set(before.keys))
        for (key, record) in after {
            #expect(record["receipts"] == 2 && record["accepts"] == 1, "\(key)")
            #expect(record["item"] == before[key]?["item"], "\(key)")
        }
    }
}
