import IngestCore

/// The on-device Timeline export (`Timeline.json`, Android since 2024): `{"semanticSegments":
/// [{"startTime", "endTime", "timelinePath": [{"point": "47.3769°, 8.5417°", "time"}]}, {…,
/// "visit": {"hierarchyLevel": 0, "topCandidate": {"placeLocation": {"latLng": "…"}}}}, {…,
/// "activity": {"topCandidate": {"type": "WALKING"}}}], "rawSignals": [{"position": {"LatLng",
/// "accuracyMeters", "altitudeMeters", "speedMetersPerSecond", "timestamp"}}, …]}`.
struct TimelineExport: JSONElementParser {
    var elements: JSONElementStream

    init(_ reader: BlockReader) { elements = JSONElementStream(reader, keys: ["semanticSegments", "rawSignals"]) }

    func take(_ element: [UInt8], key: String, into batch: inout HistoryBatch) -> Bool {
        guard let object = JSONValue.parse(element) else { return false }
        if key == "rawSignals" {
            guard let position = object["position"] else { return true }      // a Wi-Fi scan or an activity record: no fix
            guard let (lat, lon) = (position["LatLng"]?.stringValue ?? position["latLng"]?.stringValue).flatMap(HistoryTime.latLng),
                  let time = position["timestamp"]?.stringValue.flatMap(HistoryTime.parse) else { return false }
            batch.points.append(Fix(time: time, latitude: lat, longitude: lon, altitude: position["altitudeMeters"]?.doubleValue.map(Float.init),
                                    error: position["accuracyMeters"]?.doubleValue.map(Float.init),
                                    speed: position["speedMetersPerSecond"]?.doubleValue.map(Float.init)))
            return true
        }
        let start = object["startTime"]?.stringValue.flatMap(HistoryTime.parse), end = object["endTime"]?.stringValue.flatMap(HistoryTime.parse)
        if let path = object["timelinePath"]?.arrayValue {
            for point in path {
                guard let (lat, lon) = point["point"]?.stringValue.flatMap(HistoryTime.latLng),
                      let time = point["time"]?.stringValue.flatMap(HistoryTime.parse) else { return false }
                batch.points.append(Fix(time: time, latitude: lat, longitude: lon))
            }
            return true
        }
        guard let start, let end, end >= start else { return false }
        if let visit = object["visit"] {
            guard let (lat, lon) = visit["topCandidate"]?["placeLocation"]?["latLng"]?.stringValue.flatMap(HistoryTime.latLng) else { return false }
            batch.visits.append(StatedVisit(start: start, end: end, latitude: lat, longitude: lon))
            return true
        }
        if let activity = object["activity"] {
            batch.activities.append(StatedActivity(start: start, end: end, mode: StatedActivity.mode(activity["topCandidate"]?["type"]?.stringValue ?? "")))
            return true
        }
        return true       // a segment of another kind (timelineMemory): nothing of a place in it
    }
}
