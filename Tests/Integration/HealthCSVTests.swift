import Foundation
import IngestCore
import Testing

/// The health adapter's CSV files end to end: bad rows, a file that grows, a file edited in place.
@Suite("health adapter: CSV files against the test node", .serialized)
struct HealthCSVTests {
    @Test func aCSVWithBadRowsLandsItsGoodRowsAndWarnsOnceNamingTheFirstBadLine() throws {
        let rig = try HealthRig("Column.steps=Steps\nColumn.resting_heart_rate=Resting HR\nDateColumn=Date\nDateFormat=%Y-%m-%d\n")
        try rig.put("daily.csv", """
            Date,Steps,Resting HR
            2024-05-01,8000,55
            2024-05-02,9000
            yesterday,7000,50
            2024-05-04,10000000,52
            2024-05-05,6000,54

            """)
        let r = try rig.run()
        let warnings = r.stderr.split(separator: "\n").filter { $0.contains(rig.exports + "/daily.csv") }
        #expect(warnings.count == 1, "one warning for the file: \(r.stderr)")
        #expect(warnings.first?.contains("3 bad") == true && warnings.first?.contains("line 3") == true, "\(warnings)")
        #expect(try rig.day("2024-05-01") == ["date": "2024-05-01", "tz": "+00:00", "steps": 8000, "resting_heart_rate": 55])
        #expect(try rig.day("2024-05-05") == ["date": "2024-05-05", "tz": "+00:00", "steps": 6000, "resting_heart_rate": 54])
        // The 10-million-step row is skipped as a row: its resting heart rate does not land either.
        let keys = try rig.stored().keys.sorted()
        #expect(keys == ["day:2024-05-01", "day:2024-05-05"])
    }

    // MARK: - Appended CSV

    @Test func aCSVThatGrowsByTwoRowsSendsOnlyTheDaysTheNewRowsChange() throws {
        let rig = try HealthRig("Column.steps=Steps\n")
        try rig.put("steps.csv", "Date,Steps\n2024-05-01T08:00:00+02:00,1000\n2024-05-01T12:00:00+02:00,2000\n2024-05-02T09:00:00+02:00,3000\n")
        try rig.run()
        #expect(try rig.counts() == HealthRig.Counts(accepted: 2, duplicates: 0, receipts: 2, live: 2))
        let first = try rig.stored()

        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: rig.exports + "/steps.csv"))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data("2024-05-02T18:00:00+02:00,500\n2024-05-03T07:00:00+02:00,700\n".utf8))
        try handle.close()
        try rig.run()
        #expect(try rig.counts() == HealthRig.Counts(accepted: 4, duplicates: 0, receipts: 4, live: 3))
        let now = try rig.stored()
        #expect(try rig.day("2024-05-01") == ["date": "2024-05-01", "tz": "+02:00", "steps": 3000])
        #expect(try rig.day("2024-05-02") == ["date": "2024-05-02", "tz": "+02:00", "steps": 3500])   // 3000 + 500
        #expect(try rig.day("2024-05-03") == ["date": "2024-05-03", "tz": "+02:00", "steps": 700])
        #expect(now["day:2024-05-01"]?["receipts"] == 1 && now["day:2024-05-01"]?["version"] == first["day:2024-05-01"]?["version"])
        #expect(now["day:2024-05-02"]?["accepts"] == 2 && now["day:2024-05-02"]?["receipts"] == 2)
        #expect(now["day:2024-05-03"]?["accepts"] == 1)
    }

    /// A CSV edited in place (same inode, longer, its first row changed) is read whole; after
    /// that, rows appended to it are again read from where it ended.
    @Test func aCSVEditedInPlaceIsReadWholeAndItsLaterAppendsFromTheEnd() throws {
        let rig = try HealthRig("Column.steps=Steps\n")
        let path = rig.exports + "/steps.csv"
        try rig.put("steps.csv", "Date,Steps\n2024-05-01T08:00:00+02:00,1000\n2024-05-02T09:00:00+02:00,3000\n")
        try rig.run()
        func rewrite(_ text: String, append: Bool) throws {
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
            if append { try handle.seekToEnd() } else { try handle.truncate(atOffset: 0) }
            try handle.write(contentsOf: Data(text.utf8))
            try handle.close()
        }
        try rewrite("Date,Steps\n2024-05-01T08:00:00+02:00,1100\n2024-05-02T09:00:00+02:00,3000\n2024-05-03T09:00:00+02:00,10\n", append: false)
        let edited = try rig.run(verbose: true)
        #expect(edited.stderr.contains("steps.csv: 3 records read"), "the changed prefix is read whole: \(edited.stderr)")
        #expect(try rig.day("2024-05-01")?["steps"] == 1100)
        try rewrite("2024-05-04T09:00:00+02:00,20\n", append: true)
        let appended = try rig.run(verbose: true)
        #expect(appended.stderr.contains("steps.csv: 1 records read"), "only the appended row: \(appended.stderr)")
        #expect(try rig.day("2024-05-04")?["steps"] == 20)
    }
}
