import IngestCore

/// A GeoJSON FeatureCollection of timed Points: `{"type": "FeatureCollection", "features":
/// [{"type": "Feature", "geometry": {"type": "Point", "coordinates": [lon, lat, alt?]},
/// "properties": {…}}]}`. The time is `timestamp` in epoch seconds (Dawarich) or `time` as
/// RFC 3339 (GPSLogger); `accuracy` in metres and `speed` in m/s where given.
struct GeoJSONPoints: JSONElementParser {
    var elements: JSONElementStream

    init(_ reader: BlockReader) { elements = JSONElementStream(reader, keys: ["features"]) }

    func take(_ element: [UInt8], key: String, into batch: inout HistoryBatch) -> Bool {
        guard let feature = JSONValue.parse(element), let geometry = feature["geometry"] else { return false }
        guard geometry["type"]?.stringValue == "Point" else { return true }      // a line or a polygon: no fix
        let p = feature["properties"]
        guard let coordinates = geometry["coordinates"]?.arrayValue, coordinates.count >= 2,
              let lon = coordinates[0].doubleValue, let lat = coordinates[1].doubleValue,
              let time = p?["timestamp"].flatMap(GeoJSONPoints.epoch) ?? p?["time"]?.stringValue.flatMap(HistoryTime.parse) else { return false }
        let altitude = coordinates.count > 2 ? coordinates[2].doubleValue : nil
        batch.points.append(Fix(time: time, latitude: lat, longitude: lon, altitude: altitude.map(Float.init),
                                error: p?["accuracy"].flatMap(GeoJSONPoints.number).map(Float.init),
                                speed: p?["speed"].flatMap(GeoJSONPoints.number).map(Float.init)))
        return true
    }

    /// Epoch seconds as a number or a numeric string; an RFC 3339 string too.
    static func epoch(_ value: JSONValue) -> Double? {
        number(value) ?? value.stringValue.flatMap(HistoryTime.parse)
    }

    static func number(_ value: JSONValue) -> Double? { value.doubleValue ?? value.stringValue.flatMap(Double.init) }
}
