import Foundation
import IngestCore
import Testing

// MARK: - Helpers

/// An Apple Health `export.xml` written by hand, shaped as iOS 17 writes it.
enum AppleExport {
    static let watch = "Anna&apos;s Apple Watch"
    static let phone = "Anna’s iPhone"

    static func xml(_ body: [String]) -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE HealthData [
        <!-- HealthKit Export Version: 14 -->
        <!ELEMENT HealthData (ExportDate,Me,(Record|Correlation|Workout|ActivitySummary|ClinicalRecord)*)>
        <!ATTLIST Record
          type          CDATA #REQUIRED
          sourceName    CDATA #REQUIRED>
        ]>
        <HealthData locale="en_DE">
         <ExportDate value="2024-07-12 21:14:05 +0200"/>
         <Me HKCharacteristicTypeIdentifierDateOfBirth="1984-02-29" HKCharacteristicTypeIdentifierBiologicalSex="HKBiologicalSexFemale"/>
        \(body.map { " " + $0 }.joined(separator: "\n"))
        </HealthData>

        """
    }

    static func record(_ type: String, _ source: String, _ start: String, _ end: String, value: String, unit: String) -> String {
        let device = source == watch ? " device=\"&lt;&lt;HKDevice: 0x283b1c2d0&gt;, name:Apple Watch, manufacturer:Apple Inc.&gt;\"" : ""
        return "<Record type=\"\(type)\" sourceName=\"\(source)\" sourceVersion=\"10.5\"\(device) unit=\"\(unit)\" creationDate=\"\(end)\" "
            + "startDate=\"\(start)\" endDate=\"\(end)\" value=\"\(value)\"/>"
    }

    static func steps(_ source: String, _ start: String, _ end: String, _ count: Int) -> String {
        record("HKQuantityTypeIdentifierStepCount", source, start, end, value: "\(count)", unit: "count")
    }

    static func heartRate(_ at: String, _ bpm: Int) -> String {
        "<Record type=\"HKQuantityTypeIdentifierHeartRate\" sourceName=\"\(watch)\" unit=\"count/min\" startDate=\"\(at)\" endDate=\"\(at)\" value=\"\(bpm)\">\n"
            + "  <MetadataEntry key=\"HKMetadataKeyHeartRateMotionContext\" value=\"1\"/>\n </Record>"
    }

    /// `stage`: InBed, AsleepCore, AsleepDeep, AsleepREM, Awake, …
    static func sleep(_ stage: String, _ start: String, _ end: String) -> String {
        "<Record type=\"HKCategoryTypeIdentifierSleepAnalysis\" sourceName=\"\(watch)\" startDate=\"\(start)\" endDate=\"\(end)\" "
            + "value=\"HKCategoryValueSleepAnalysis\(stage)\"/>"
    }
}

/// Zips `export` as Apple does (`apple_health_export/export.xml`, after `export_cda.xml`), deflated.
func zipExport(_ export: String, to zipPath: String) throws {
    let script = """
        import sys, zipfile
        with zipfile.ZipFile(sys.argv[2], "w", zipfile.ZIP_DEFLATED) as z:
            z.writestr("apple_health_export/export_cda.xml", "<ClinicalDocument/>" * 200)
            z.write(sys.argv[1], "apple_health_export/export.xml")
        """
    let r = try runProcess("/usr/bin/env", ["python3", "-c", script, export, zipPath])
    #expect(r.status == 0, "zip: \(r.stderr)")
}

/// A test node and an agent whose one `health` instance reads the folder `exports`.
final class HealthRig {
    let node: TestNode
    let agent: AgentSandbox
    let exports: String

    struct Counts: Equatable, CustomStringConvertible {
        var accepted: Int64, duplicates: Int64, receipts: Int64, live: Int64
        var description: String { "accepted \(accepted), duplicates \(duplicates), receipts \(receipts), live \(live)" }
    }

    /// - Parameter conf: lines added to `[Adapter]` after `Type=` and `Path=`.
    init(_ conf: String = "") throws {
        node = try TestNode()
        agent = try AgentSandbox()
        exports = agent.root + "/exports"
        try FileManager.default.createDirectory(atPath: exports, withIntermediateDirectories: true)
        try agent.usePairedNode(node.url, token: node.token)
        try agent.write("adapters.d/health.conf", "[Adapter]\nType=health\nPath=\(exports)\n" + conf)
    }

    /// Writes an export file anew (a new inode, as a fresh download is).
    func put(_ name: String, _ text: String) throws {
        try text.write(toFile: exports + "/" + name, atomically: true, encoding: .utf8)
    }

    /// - Parameter verbose: with `-v`, whose info lines say how many records each file gave.
    @discardableResult
    func run(verbose: Bool = false, sourceLocation: SourceLocation = #_sourceLocation) throws -> ProcessResult {
        let r = try agent.run(["run"] + (verbose ? ["-v"] : []), env: ["TZ": "UTC"])
        #expect(r.status == 0, "run: \(r.stderr)", sourceLocation: sourceLocation)
        return r
    }

    func counts() throws -> Counts {
        let c = try node.admin("counts")["endpoints"]?["health"]
        return Counts(accepted: c?["accepted"]?.intValue ?? -1, duplicates: c?["duplicates"]?.intValue ?? -1,
                      receipts: c?["receipts"]?.intValue ?? -1, live: c?["live"]?.intValue ?? -1)
    }

    /// The node's records by key: `version`, `receipts`, `accepts`, `item`.
    func stored() throws -> [String: JSONValue] {
        var out: [String: JSONValue] = [:]
        for record in try node.items("health") {
            #expect(record["source"] == "linux-health")
            if let key = record["key"]?.stringValue { out[key] = record }
        }
        return out
    }

    /// The `day` item for `date` as stored, without `key`, `kind` and `version`; numbers
    /// normalized so `52` and `52.0` compare equal.
    func day(_ date: String) throws -> JSONValue? {
        guard case .object(var fields)? = try stored()["day:" + date]?["item"] else { return nil }
        #expect(fields["kind"] == "day" && fields["key"] == .string("day:" + date))
        #expect(fields["version"]?.stringValue?.isEmpty == false, "a day has a version")
        for name in ["key", "kind", "version"] { fields[name] = nil }
        return HealthRig.normalized(.object(fields))
    }

    static func withoutVersion(_ item: JSONValue) -> JSONValue {
        guard case .object(var fields) = item else { return item }
        fields["version"] = nil
        return normalized(.object(fields))
    }

    /// Whole doubles as ints, as a JSON reader on the node may give them either way.
    static func normalized(_ value: JSONValue) -> JSONValue {
        switch value {
        case .double(let d) where d == d.rounded() && abs(d) < 1e15: .int(Int64(d))
        case .object(let o): .object(o.mapValues(normalized))
        case .array(let a): .array(a.map(normalized))
        default: value
        }
    }
}
