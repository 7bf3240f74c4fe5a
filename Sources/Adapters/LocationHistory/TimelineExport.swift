import IngestCore

/// The on-device Timeline exports. Android's `Timeline.json`: `{"semanticSegments": [{"startTime",
/// "endTime", "timelinePath": [{"point": "47.3769°, 8.5417°", "time"}]}, {…, "visit":
/// {"hierarchyLevel": 0, "topCandidate": {"placeLocation": {"latLng": "…"}}}}, {…, "activity":
/// {"topCandidate": {"type": "WALKING"}}}], "rawSignals": [{"position": {"LatLng",
/// "accuracyMeters", "altitudeMeters", "speedMetersPerSecond", "timestamp"}}, …],
/// "userLocationProfile": {…}}`; newer ones place path points by
/// `"durationMinutesOffsetFromStartTime"` instead of a `time`, and may list `rawSignals` first.
/// The iPhone's `location-history.json` is the segments alone, a bare array, every value a
/// string: `[{"startTime", "endTime", "visit": {"topCandidate": {"placeLocation":
/// "geo:47.376900,8.541700", "placeID", "semanticType", "probability": "0.8"}}}, {…, "activity":
/// {"start": "geo:…", "end": "geo:…", "topCandidate": {"type": "in passenger vehicle"}}},
/// {…, "timelinePath": [{"point": "geo:…", "durationMinutesOffsetFromStartTime": "49"}]},
/// {…, "timelineMemory": {…}}]`.
struct TimelineExport: JSONElementParser {
    var elements: JSONElementStream

    init(_ reader: BlockReader) { elements = JSONElementStream(reader, keys: ["semanticSegments", "rawSignals"]) }

    /// The iPhone's export: the document is the array of segments.
    init(segmentsOf reader: BlockReader) { elements = JSONElementStream(rootArrayOf: reader) }

    func take(_ element: [UInt8], key: String, into batch: inout HistoryBatch) -> Bool {
        guard let object = JSONValue.parse(element) else { return false }
        return key == "rawSignals" ? TimelineExport.rawSignal(object, into: &batch) : TimelineExport.segment(object, into: &batch)
    }

    static func rawSignal(_ object: JSONValue, into batch: inout HistoryBatch) -> Bool {
        guard let position = object["position"] else { return true }      // a Wi-Fi scan or an activity record: no fix
        guard let (lat, lon) = (position["LatLng"]?.stringValue ?? position["latLng"]?.stringValue).flatMap(HistoryTime.latLng),
              let time = position["timestamp"]?.stringValue.flatMap(HistoryTime.parse) else { return false }
        batch.points.append(Fix(time: time, latitude: lat, longitude: lon, altitude: position["altitudeMeters"]?.doubleValue.map(Float.init),
                                error: position["accuracyMeters"]?.doubleValue.map(Float.init),
                                speed: position["speedMetersPerSecond"]?.doubleValue.map(Float.init)))
        return true
    }

    static func segment(_ object: JSONValue, into batch: inout HistoryBatch) -> Bool {
        let start = object["startTime"]?.stringValue.flatMap(HistoryTime.parse), end = object["endTime"]?.stringValue.flatMap(HistoryTime.parse)
        if let path = object["timelinePath"]?.arrayValue {
            var fixes: [Fix] = []
            for point in path {
                guard let (lat, lon) = point["point"]?.stringValue.flatMap(HistoryTime.latLng),
                      let time = pathTime(point, segmentStart: start) else { return false }
                fixes.append(Fix(time: time, latitude: lat, longitude: lon))
            }
            batch.points += fixes
            return true
        }
        guard let start, let end, end >= start else { return false }
        if let visit = object["visit"] {
            // Android nests the place as `{"latLng": "…"}`, the iPhone writes the `geo:` string itself.
            let place = visit["topCandidate"]?["placeLocation"]
            guard let (lat, lon) = (place?["latLng"]?.stringValue ?? place?.stringValue).flatMap(HistoryTime.latLng) else { return false }
            batch.visits.append(StatedVisit(start: start, end: end, latitude: lat, longitude: lon))
            return true
        }
        if let activity = object["activity"] {
            batch.activities.append(StatedActivity(start: start, end: end, mode: StatedActivity.mode(activity["topCandidate"]?["type"]?.stringValue ?? "")))
            return true
        }
        return true       // a segment of another kind (timelineMemory): nothing of a place in it
    }

    /// A path point's own `time`, or the segment's start plus its whole minutes
    /// `durationMinutesOffsetFromStartTime` (a string on the iPhone, a number in some Android files).
    static func pathTime(_ point: JSONValue, segmentStart: Double?) -> Double? {
        if let time = point["time"]?.stringValue { return HistoryTime.parse(time) }
        let offset = point["durationMinutesOffsetFromStartTime"]
        guard let segmentStart, let minutes = offset?.doubleValue ?? offset?.stringValue.flatMap(Double.init),
              minutes >= 0, minutes <= 60 * 24 * 366 else { return nil }
        return segmentStart + minutes * 60
    }
}
