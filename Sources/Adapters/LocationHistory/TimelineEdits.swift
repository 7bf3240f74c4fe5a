import IngestCore

/// Takeout's `Timeline Edits.json` (since 2024): `{"timelineEdits": [{"deviceId": "799010011",
/// "rawSignal": {"signal": {"position": {"point": {"latE7": 473769000, "lngE7": 85417000},
/// "accuracyMm": 9000, "altitudeMeters": 408.0, "speedMetersPerSecond": 0.0, "source": "GPS",
/// "timestamp": "2024-03-13T14:43:00.805Z"}}, "additionalTimestamp", "metadata"}}, {"deviceId",
/// "rawSignal": {"signal": {"wifiScan" | "activityRecord": …}}}, {"deviceId": "0",
/// "placeAggregates": {"placeAggregateInfo": [{"score", "point", "placeId", "placePoint"}],
/// "windowSizeHrs": 2016, "processWindow": {"startTime", "endTime"}}}]}`. Only positions are
/// fixes, kept apart by `deviceId`: a Wi-Fi scan or activity record holds none, and a place
/// aggregate ranks places over a window of weeks, no visit with a time.
struct TimelineEdits: JSONElementParser {
    var elements: JSONElementStream

    init(_ reader: BlockReader) { elements = JSONElementStream(reader, keys: ["timelineEdits"]) }

    func take(_ element: [UInt8], key: String, into batch: inout HistoryBatch) -> Bool {
        guard let edit = JSONValue.parse(element), case .object = edit else { return false }
        guard let position = edit["rawSignal"]?["signal"]?["position"], let point = position["point"], point != .null else { return true }
        guard let lat = point["latE7"]?.doubleValue, let lon = point["lngE7"]?.doubleValue,
              let time = position["timestamp"]?.stringValue.flatMap(HistoryTime.parse) else { return false }
        let fix = Fix(time: time, latitude: lat / 1e7, longitude: lon / 1e7, altitude: position["altitudeMeters"]?.doubleValue.map(Float.init),
                      error: position["accuracyMm"]?.doubleValue.map { Float($0 / 1000) },
                      speed: position["speedMetersPerSecond"]?.doubleValue.map(Float.init))
        batch.add(fix, device: edit["deviceId"]?.stringValue.flatMap { Int64($0) })
        return true
    }
}
