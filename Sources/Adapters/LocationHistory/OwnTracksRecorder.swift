import IngestCore

/// An OwnTracks Recorder `.rec` file: one line per message, `2024-06-01T07:00:00Z<TAB>topic
/// <TAB>{"_type": "location", "tst": 1717225200, "lat": …, "lon": …, "acc": 10, "vel": 18, …}`,
/// the topic padded to 18 (`*` for the device's own topic, `event` for transitions, `waypoint`).
/// `location` messages are fixes (the time is `tst`, epoch seconds; `vel` is km/h); `transition`
/// messages (`event` enter|leave, `tst`, `wtst`, `rid`, `desc`, `lat`/`lon`) and `waypoint`
/// messages (`desc`, `lat`, `lon`, `rad`, `tst`, `rid`) are the region events and regions that
/// `RegionStays` makes stated visits of. Cards, lwt, status and the rest are passed over.
struct OwnTracksRecorder: HistoryParser {
    private var reader: BlockReader

    init(_ reader: BlockReader) { self.reader = reader }

    mutating func read(into batch: inout HistoryBatch) throws(FileReadError) -> Bool {
        while !batch.isFull {
            guard let end = try reader.find([0x0A]) else {
                // The last line without its newline: a recorder writing it now, or a cut file. Half
                // a line is no error: the file is read again once it grew.
                let rest = Array(reader.bytes[reader.position...])
                reader.position = reader.bytes.count
                if !rest.isEmpty { take(rest, into: &batch, unfinished: true) }
                return false
            }
            let line = Array(reader.bytes[reader.position..<(reader.position + end)])
            reader.position += end + 1
            take(line, into: &batch, unfinished: false)
            reader.line += 1
        }
        return true
    }

    private func take(_ line: [UInt8], into batch: inout HistoryBatch, unfinished: Bool) {
        guard let brace = line.firstIndex(of: UInt8(ascii: "{")), let message = JSONValue.parse(line[brace...]) else {
            if !unfinished, line.contains(where: { $0 != 0x20 && $0 != 0x0D }) { batch.reject(line: reader.line) }
            return
        }
        switch message["_type"]?.stringValue {
        case "location": break
        case "transition":
            guard let event = RegionEvent(transition: message) else { batch.reject(line: reader.line); return }
            batch.regionEvents.append(event)
            return
        case "waypoint":
            if let region = Region(waypoint: message) { batch.regions.append(region) }     // else a beacon: no position
            return
        default: return                                                              // a card, lwt, status, steps
        }
        guard let tst = message["tst"]?.doubleValue, let lat = message["lat"]?.doubleValue, let lon = message["lon"]?.doubleValue else {
            batch.reject(line: reader.line); return
        }
        batch.points.append(Fix(time: tst, latitude: lat, longitude: lon, altitude: message["alt"]?.doubleValue.map(Float.init),
                                error: message["acc"]?.doubleValue.map(Float.init),
                                speed: message["vel"]?.doubleValue.map { Float($0 / 3.6) }))
        batch.read += 1
    }
}
