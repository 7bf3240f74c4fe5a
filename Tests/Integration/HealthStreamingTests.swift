import Foundation
import IngestCore
import Testing

/// Health exports read as streams, end to end: the real binary, the real test node.
@Suite("health exports streamed, against the test node", .serialized)
struct HealthStreamingTests {
    /// Streamed: the first metric's `data` comes before its name (read again from its offset in
    /// the file), the second is cut off mid-point.
    @Test func aCutOffHealthAutoExportJSONKeepsItsSamplesBeforeTheCutWithOneWarning() throws {
        let rig = try HealthRig()
        try rig.put("export.json", """
            {"data":{"metrics":[{"data":[
            {"date":"2024-06-01 08:00:00 +0200","qty":812,"source":"Anna's Apple Watch"},
            {"date":"2024-06-02 08:00:00 +0200","qty":700,"source":"Anna's Apple Watch"}
            ],"name":"step_count","units":"count"},
            {"name":"resting_heart_rate","units":"count/min","data":[
            {"date":"2024-06-01 12:00:00 +0200","qty":55,"source":"Anna's Apple Watch"},
            {"date":"2024-06-02 12:00:00 +0200","qty":5
            """)
        let r = try rig.run()
        #expect(try rig.stored().keys.sorted() == ["day:2024-06-01", "day:2024-06-02"])
        #expect(try rig.day("2024-06-01")?["steps"] == 812 && rig.day("2024-06-01")?["resting_heart_rate"] == 55)
        #expect(try rig.day("2024-06-02")?["steps"] == 700 && rig.day("2024-06-02")?["resting_heart_rate"] == nil)
        let warnings = r.stderr.split(separator: "\n").filter { $0.contains(rig.exports + "/export.json") }
        #expect(warnings.count == 1 && warnings.first?.contains("cut off at line 7") == true, "\(r.stderr)")
    }

    /// Records that go back in time (a shuffled export) are sorted before they are stored: the
    /// same days come out, a record read twice counts with its later value, and what came
    /// before a cut at the end is kept.
    @Test func aCutOffExportXMLWhoseRecordsGoBackInTimeIsStoredSortedKeepingTheLaterValueOfARecordReadTwice() throws {
        let rig = try HealthRig()
        let step = { (day: Int, count: Int) in
            AppleExport.steps(AppleExport.watch, "2024-06-0\(day) 08:00:00 +0200", "2024-06-0\(day) 08:10:00 +0200", count)
        }
        let text = AppleExport.xml((1...6).reversed().map { step($0, 100 * $0) } + [step(3, 999), step(7, 700)])
        let cut = try #require(text.range(of: "2024-06-07 08:10:00"))
        try rig.put("export.xml", String(text[..<cut.lowerBound]))
        let r = try rig.run(verbose: true)
        #expect(r.stderr.contains("7 samples came scattered over days and kinds; stored sorted"), "\(r.stderr)")
        #expect(try rig.stored().keys.sorted() == (1...6).map { "day:2024-06-0\($0)" })
        #expect(try (1...6).map { try rig.day("2024-06-0\($0)")?["steps"] } == [100, 200, 999, 400, 500, 600])
        let warnings = r.stderr.split(separator: "\n").filter { $0.contains(rig.exports + "/export.xml") && !$0.contains("<6>") }
        #expect(warnings.count == 1 && warnings.first?.contains("cut off") == true, "\(r.stderr)")
    }
}
