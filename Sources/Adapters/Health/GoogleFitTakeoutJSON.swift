import FoundationEssentials
import IngestCore

/// Google Fit's Takeout "All Data" files: one JSON object per data source,
/// `{"Data Source": "derived:com.google.step_count.delta:…", "Data Points": [{"dataTypeName": …,
/// "startTimeNanos": …, "endTimeNanos": …, "fitValue": [{"value": {"intVal": 120}}],
/// "originDataSourceId": "raw:com.google.step_count.cumulative:Google:Pixel 7:…"}]}`.
/// Times are UTC nanoseconds; the offset is `settings.timeZone`'s at each start.
///
/// `com.google.calories.expended` is not read: Google Fit spreads the basal rate into it over
/// irregular intervals, so active energy cannot be told apart from it (the node's day has only
/// active energy), and counting all of it as active would add a day's basal rate.
enum GoogleFitTakeoutJSON: HealthReader {
    static let format = "google-fit"

    static func detect(name: String, head: [UInt8]) -> Bool {
        guard head.first(where: { ![0x20, 0x09, 0x0A, 0x0D, 0xEF, 0xBB, 0xBF].contains($0) }) == 0x7B else { return false }
        let text = String(decoding: head, as: UTF8.self)
        return text.contains("\"Data Points\"") || text.contains("\"Data Source\"")
    }

    /// `com.google.sleep.segment` values (Google Fit's `SleepStages`): 1 awake, 2 asleep, 3 out of
    /// bed (neither), 4 light, 5 deep, 6 REM.
    static let sleepStages: [Int64: HealthSample.SleepStage] = [1: .awake, 2: .asleep, 4: .core, 5: .deep, 6: .rem]

    static func read(_ input: HealthInput, _ settings: HealthSettings, into out: HealthCollector) throws(FileReadError) {
        let zone = settings.timeZone
        var ignored: Set<String> = []
        let end = try JSONArrayElements.scan(input.stream(), key: "Data Points") { (point, line) throws(FileReadError) in
            guard let point, let type = point["dataTypeName"]?.stringValue else { out.bad(line: line, "not a data point with a dataTypeName"); return }
            guard let startNanos = point["startTimeNanos"]?.intValue ?? point["startTimeNanos"]?.stringValue.flatMap({ Int64($0) }),
                  let endNanos = point["endTimeNanos"]?.intValue ?? point["endTimeNanos"]?.stringValue.flatMap({ Int64($0) }) else {
                out.bad(line: line, "unreadable startTimeNanos or endTimeNanos"); return
            }
            let start = Double(startNanos) / 1e9, end = Double(endNanos) / 1e9
            let value = point["fitValue"]?.arrayValue?.first?["value"]
            let number = value?["intVal"].flatMap(\.doubleValue) ?? value?["fpVal"].flatMap(\.doubleValue)
            let kind: HealthSample.Kind
            switch type {
            case "com.google.step_count.delta": kind = .steps
            case "com.google.heart_rate.bpm": kind = .heartRate
            case "com.google.sleep.segment":
                guard let code = value?["intVal"]?.intValue else { out.bad(line: line, "sleep segment without an intVal"); return }
                if code == 3 { return }                                  // out of bed
                guard let stage = sleepStages[code] else { out.bad(line: line, "unknown sleep segment \(code)"); return }
                kind = .sleep(stage)
            default:
                ignored.insert(type); return
            }
            guard let number else { out.bad(line: line, "fitValue holds no number"); return }
            let sample = HealthSample(kind: kind, start: start, end: kind == .heartRate ? start : end, offset: zone.offset(at: start),
                                      value: kind == .steps || kind == .heartRate ? number : end - start,
                                      source: source(point["originDataSourceId"]?.stringValue))
            try out.add(sample, line: line)
        }
        for type in ignored.sorted() { out.note("\(input.path.lastPathComponent): \(type) is not read") }
        switch end {
        case .complete: break
        case .truncated(let line): out.note("\(input.path.lastPathComponent) is cut off at line \(line): the data points before it were read")
        case .missing: throw FileReadError("not a Google Fit Takeout file (no \"Data Points\" array)")
        }
    }

    /// `raw:com.google.step_count.cumulative:Google:Pixel 7:1a2b:step_counter` → `Google Fit: Pixel 7`;
    /// `raw:com.google.heart_rate.bpm:com.mc.miband1:` → `Google Fit: com.mc.miband1` (the app).
    static func source(_ origin: String?) -> String {
        let parts = (origin ?? "").split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        if parts.count >= 4, !parts[3].isEmpty { return "Google Fit: " + parts[3] }
        if parts.count >= 3, !parts[2].isEmpty { return "Google Fit: " + parts[2] }
        return "Google Fit"
    }
}
