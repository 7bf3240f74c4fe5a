/// The track points of a Garmin Training Center file (Garmin Connect's and Strava's `.tcx`
/// export, gpsbabel's `gtrnctr`): `<Trackpoint><Time>2024-06-01T06:00:00.000Z</Time><Position>
/// <LatitudeDegrees>47.3769</LatitudeDegrees><LongitudeDegrees>8.5417</LongitudeDegrees>
/// </Position><AltitudeMeters>408</AltitudeMeters>…</Trackpoint>`, in an `Activity`'s laps or
/// a `Course`. A trackpoint without a `Position` (heart rate only, indoors or before a GPS
/// fix) is no point and no error. Shape as in Garmin's TrainingCenterDatabasev2.xsd and the
/// files python-tcxparser and gpsbabel's `gtrnctr` read and write.
struct TCXTrack: HistoryParser {
    private var tags: XMLTagStream
    private var point: (time: [UInt8]?, lat: [UInt8]?, lon: [UInt8]?, alt: [UInt8]?, line: Int)?

    init(_ reader: BlockReader) { tags = XMLTagStream(reader) }

    mutating func read(into batch: inout HistoryBatch) throws(FileReadError) -> Bool {
        while !batch.isFull {
            guard let tag = try tags.next() else { return false }
            switch (String(decoding: tag.name, as: UTF8.self), tag.closing) {
            case ("Trackpoint", false): point = (nil, nil, nil, nil, tag.line)
            case ("Trackpoint", true):
                guard let p = point else { continue }
                point = nil
                guard let lat = p.lat, let lon = p.lon else { continue }
                if let fix = TCXTrack.fix(time: p.time ?? [], lat: lat, lon: lon, alt: p.alt) {
                    batch.points.append(fix); batch.read += 1
                } else {
                    batch.reject(line: p.line)
                }
            case ("Time", true): point?.time = tag.text
            case ("LatitudeDegrees", true): point?.lat = tag.text
            case ("LongitudeDegrees", true): point?.lon = tag.text
            case ("AltitudeMeters", true): point?.alt = tag.text
            default: break
            }
        }
        return true
    }

    static func fix(time: [UInt8], lat: [UInt8], lon: [UInt8], alt: [UInt8]?) -> Fix? {
        guard let t = HistoryTime.parse(time), let latitude = Double(String(decoding: lat, as: UTF8.self)),
              let longitude = Double(String(decoding: lon, as: UTF8.self)), abs(latitude) <= 90, abs(longitude) <= 180 else { return nil }
        return Fix(time: t, latitude: latitude, longitude: longitude, altitude: alt.flatMap { Float(String(decoding: $0, as: UTF8.self)) })
    }
}
