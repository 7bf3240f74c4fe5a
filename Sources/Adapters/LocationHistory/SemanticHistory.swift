import IngestCore

/// Google Takeout's Semantic Location History, one file a month (`2024_JUNE.json`):
/// `{"timelineObjects": [{"placeVisit": {"location": {"latitudeE7", "longitudeE7", …}, "duration":
/// {"startTimestamp", "endTimestamp"}}}, {"activitySegment": {"duration": …, "activityType":
/// "WALKING", …}}]}`; before 2022 the times are `startTimestampMs`/`endTimestampMs`. Files from
/// before about 2016 have no `activityType`: the mode is `waypointPath.travelMode` (`WALK`) or
/// the first of the most probable `activities[].activityType` (their probabilities may all be 0).
struct SemanticHistory: JSONElementParser {
    var elements: JSONElementStream

    init(_ reader: BlockReader) { elements = JSONElementStream(reader, keys: ["timelineObjects"]) }

    func take(_ element: [UInt8], key: String, into batch: inout HistoryBatch) -> Bool {
        guard let object = JSONValue.parse(element) else { return false }
        if let visit = object["placeVisit"] {
            guard let (start, end) = SemanticHistory.duration(visit["duration"]), let lat = visit["location"]?["latitudeE7"]?.doubleValue,
                  let lon = visit["location"]?["longitudeE7"]?.doubleValue else { return false }
            batch.visits.append(StatedVisit(start: start, end: end, latitude: lat / 1e7, longitude: lon / 1e7))
            return true
        }
        if let segment = object["activitySegment"] {
            guard let (start, end) = SemanticHistory.duration(segment["duration"]) else { return false }
            batch.activities.append(StatedActivity(start: start, end: end, mode: SemanticHistory.mode(segment)))
            return true
        }
        return false
    }

    /// The segment's activity type in whichever place its era put it.
    static func mode(_ segment: JSONValue) -> Trip.Mode {
        let ranked = (segment["activities"]?.arrayValue ?? []).enumerated().max { a, b in
            let pa = a.element["probability"]?.doubleValue ?? 0, pb = b.element["probability"]?.doubleValue ?? 0
            return pa != pb ? pa < pb : a.offset > b.offset       // on a tie the earlier listed wins
        }?.element["activityType"]?.stringValue
        for type in [segment["activityType"]?.stringValue, segment["waypointPath"]?["travelMode"]?.stringValue, ranked] {
            if let type, case let mode = StatedActivity.mode(type), mode != .unknown { return mode }
        }
        return .unknown
    }

    static func duration(_ value: JSONValue?) -> (Double, Double)? {
        func time(_ name: String) -> Double? {
            if let text = value?[name + "Timestamp"]?.stringValue { return HistoryTime.parse(text) }
            return value?[name + "TimestampMs"].flatMap { $0.doubleValue ?? $0.stringValue.flatMap(Double.init) }.map { $0 / 1000 }
        }
        guard let start = time("start"), let end = time("end"), end >= start else { return nil }
        return (start, end)
    }
}
