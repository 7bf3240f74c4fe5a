/// The timed places of a KML file (Google Earth, gpsbabel, Traccar servers whose export writes a
/// `gx:Track`, Google's per-day Timeline KML; inside a KMZ zip as `doc.kml`):
/// - `<gx:Track>` (also KML 2.3's `<Track>`, and each track of a `<gx:MultiTrack>`): parallel
///   lists of `<when>` times and `<gx:coord>lon lat alt</gx:coord>`, the n-th time with the
///   n-th coordinate, whether the writer interleaves them or lists all times first (Google
///   Earth, gpsbabel, Traccar);
/// - a `<Placemark>` with a `<Point>` and a `<TimeStamp><when>`: a point at that time;
/// - a `<Placemark>` with a `<Point>` and a `<TimeSpan>` of a `begin` and a later `end` (Google
///   Timeline's places): a stated visit; with only one of them, a point at it.
/// Placemarks without a time (My Maps pins, a drawn route, upstream Traccar's export, which is
/// a `LineString` of coordinates only) are no fixes and no errors. Times
/// of a view (`LookAt`, `Camera`) are the camera's, not the place's. Shapes as Google's KML
/// reference (developers.google.com/kml/documentation/kmlreference, gx:Track) gives them.
struct KMLPlaces: HistoryParser {
    private var tags: XMLTagStream
    /// A track's times and coordinates not yet paired, each nil when unreadable.
    private var times: [Double?] = [], coords: [(Double, Double, Float?)?] = []
    private var paired = 0
    private var trackLine = 0
    private var placemark: Placemark?
    private var inView = 0, inPoint = false, inTrack = false

    struct Placemark {
        var line: Int
        var when: [UInt8]?, begin: [UInt8]?, end: [UInt8]?
        var point: [UInt8]?
    }

    init(_ reader: BlockReader) { tags = XMLTagStream(reader) }

    mutating func read(into batch: inout HistoryBatch) throws(FileReadError) -> Bool {
        while !batch.isFull {
            guard let tag = try tags.next() else { return false }
            guard !tag.selfClosing else { continue }
            switch (String(decoding: tag.name, as: UTF8.self), tag.closing) {
            case ("LookAt", let closing), ("Camera", let closing): inView += closing ? -1 : 1
            case ("Track", false): inTrack = true; times = []; coords = []; paired = 0; trackLine = tag.line
            case ("Track", true): endTrack(into: &batch)
            case ("when", true) where inTrack && inView == 0:
                times.append(HistoryTime.parse(tag.text)); pair(into: &batch)
            case ("coord", true) where inTrack:
                coords.append(KMLPlaces.coordinate(tag.text, separator: 0x20)); pair(into: &batch)
            case ("Placemark", false): placemark = Placemark(line: tag.line)
            case ("Placemark", true): endPlacemark(into: &batch)
            case ("when", true) where inView == 0: placemark?.when = tag.text
            case ("begin", true) where inView == 0: placemark?.begin = tag.text
            case ("end", true) where inView == 0: placemark?.end = tag.text
            case ("Point", let closing): inPoint = !closing
            case ("coordinates", true) where inPoint: placemark?.point = tag.text
            default: break
            }
        }
        return true
    }

    /// The next time with the next coordinate, once both are there.
    private mutating func pair(into batch: inout HistoryBatch) {
        while paired < times.count, paired < coords.count {
            if let time = times[paired], let (lon, lat, alt) = coords[paired] {
                batch.points.append(Fix(time: time, latitude: lat, longitude: lon, altitude: alt))
                batch.read += 1
            } else {
                batch.reject(line: trackLine)
            }
            paired += 1
        }
        // Keep the lists short when the writer interleaves them.
        if paired == times.count, paired == coords.count { times = []; coords = []; paired = 0 }
    }

    private mutating func endTrack(into batch: inout HistoryBatch) {
        if times.count != coords.count { batch.reject(line: trackLine) }     // lists of unequal length
        inTrack = false; times = []; coords = []; paired = 0
    }

    private mutating func endPlacemark(into batch: inout HistoryBatch) {
        defer { placemark = nil }
        guard let p = placemark, let point = p.point else { return }
        guard p.when != nil || p.begin != nil || p.end != nil else { return }      // untimed: a pin
        guard let (lon, lat, alt) = KMLPlaces.coordinate(point, separator: UInt8(ascii: ",")) else { batch.reject(line: p.line); return }
        let when = p.when.flatMap { HistoryTime.parse($0) }, begin = p.begin.flatMap { HistoryTime.parse($0) }
        let end = p.end.flatMap { HistoryTime.parse($0) }
        if let begin, let end, end > begin {
            batch.visits.append(StatedVisit(start: begin, end: end, latitude: lat, longitude: lon))
        } else if let time = when ?? begin ?? end {
            batch.points.append(Fix(time: time, latitude: lat, longitude: lon, altitude: alt))
        } else {
            batch.reject(line: p.line); return
        }
        batch.read += 1
    }

    /// `lon lat [alt]` (gx:coord) or `lon,lat[,alt]` (coordinates), as longitude, latitude, altitude.
    static func coordinate(_ text: [UInt8], separator: UInt8) -> (Double, Double, Float?)? {
        let parts = text.split { $0 == separator || $0 == 0x20 || $0 == 0x0A || $0 == 0x09 || $0 == 0x0D }
            .map { String(decoding: $0, as: UTF8.self) }
        guard parts.count == 2 || parts.count == 3, let lon = Double(parts[0]), let lat = Double(parts[1]),
              abs(lat) <= 90, abs(lon) <= 180 else { return nil }
        return (lon, lat, parts.count == 3 ? Float(parts[2]) : nil)
    }
}
