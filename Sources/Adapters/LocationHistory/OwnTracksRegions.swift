import IngestCore

/// Which OwnTracks region a waypoint defines or a transition names: the app's region id (`rid`,
/// since 2021), the region's creation time (a waypoint's `tst`, copied into a transition's
/// `wtst`), and its name (`desc`).
struct RegionID: Hashable, Sendable {
    var rid: String?
    var created: Double?
    var desc: String?

    init(rid: String?, created: Double?, desc: String?) { self.rid = rid; self.created = created; self.desc = desc }

    /// From a waypoint (`created` from `tst`) or a transition (`created` from `wtst`).
    init(_ message: JSONValue, created field: String) {
        self.init(rid: message["rid"]?.stringValue, created: message[field]?.doubleValue, desc: message["desc"]?.stringValue)
    }

    /// What pairs an enter with its leave: the most specific identity the event has.
    var pairing: String {
        if let rid { return "r:" + rid }
        if let created { return "c:\(created)" }
        return "d:" + (desc ?? "")
    }

    var json: JSONValue { ["rid": JSONValue(rid), "created": JSONValue(created), "desc": JSONValue(desc)] }

    init(json: JSONValue?) { self.init(rid: json?["rid"]?.stringValue, created: json?["created"]?.doubleValue, desc: json?["desc"]?.stringValue) }
}

/// A region as a `_type: waypoint` message defines it (`lat`, `lon`; a beacon-only waypoint has none).
struct Region: Equatable, Sendable {
    var id: RegionID
    var latitude: Double
    var longitude: Double

    init(id: RegionID, latitude: Double, longitude: Double) { self.id = id; self.latitude = latitude; self.longitude = longitude }

    init?(waypoint m: JSONValue) {
        guard let lat = m["lat"]?.doubleValue, let lon = m["lon"]?.doubleValue, m["tst"]?.doubleValue != nil else { return nil }
        self.init(id: RegionID(m, created: "tst"), latitude: lat, longitude: lon)
    }

    var record: [UInt8] { (["id": id.json, "lat": .double(latitude), "lon": .double(longitude)] as JSONValue).encoded }

    init?(record: [UInt8]) {
        guard let v = JSONValue.parse(record), let lat = v["lat"]?.doubleValue, let lon = v["lon"]?.doubleValue else { return nil }
        self.init(id: RegionID(json: v["id"]), latitude: lat, longitude: lon)
    }
}

/// A `_type: transition` message: the device entered or left a region at `tst`, at `lat`/`lon`.
struct RegionEvent: Equatable, Sendable {
    var time: Double
    var enter: Bool
    var latitude: Double?
    var longitude: Double?
    var region: RegionID

    init(time: Double, enter: Bool, latitude: Double?, longitude: Double?, region: RegionID) {
        self.time = time; self.enter = enter; self.latitude = latitude; self.longitude = longitude; self.region = region
    }

    /// nil for a message that is no enter or leave with a time (a beacon's ranging, a cut line).
    init?(transition m: JSONValue) {
        guard let tst = m["tst"]?.doubleValue, let event = m["event"]?.stringValue, event == "enter" || event == "leave" else { return nil }
        self.init(time: tst, enter: event == "enter", latitude: m["lat"]?.doubleValue, longitude: m["lon"]?.doubleValue,
                  region: RegionID(m, created: "wtst"))
    }

    var record: [UInt8] {
        (["t": .double(time), "event": .string(enter ? "enter" : "leave"), "lat": JSONValue(latitude), "lon": JSONValue(longitude),
          "id": region.json] as JSONValue).encoded
    }

    init?(record: [UInt8]) {
        guard let v = JSONValue.parse(record), let t = v["t"]?.doubleValue, let event = v["event"]?.stringValue else { return nil }
        self.init(time: t, enter: event == "enter", latitude: v["lat"]?.doubleValue, longitude: v["lon"]?.doubleValue, region: RegionID(json: v["id"]))
    }
}

/// Region events as stated visits: from each enter to the next leave of the same region, at the
/// region's position where a waypoint defines it, else midway between where the enter and the
/// leave fired (an event without `lat`/`lon` takes the location fix nearest it). An enter with no leave yet (the stay goes on, or the leave is in a file not read)
/// states nothing: the points show the stay meanwhile. A leave with no enter before it (the
/// export began inside the region) states nothing either; a second enter before a leave (a repeat
/// after a restart) keeps the first.
enum RegionStays {
    static func visits(_ events: [RegionEvent], regions: [Region]) -> [StatedVisit] {
        var entered: [String: RegionEvent] = [:]
        var visits: [StatedVisit] = []
        for event in events.sorted(by: { $0.time != $1.time ? $0.time < $1.time : $0.enter && !$1.enter }) {
            let key = event.region.pairing
            if event.enter {
                if entered[key] == nil { entered[key] = event }
                continue
            }
            guard let enter = entered.removeValue(forKey: key), event.time >= enter.time,
                  let place = position(of: event.region, regions) ?? midway(enter, event) else { continue }
            visits.append(StatedVisit(start: enter.time, end: event.time, latitude: place.latitude, longitude: place.longitude))
        }
        return visits
    }

    /// The waypoint defining `id`: by region id, else by creation time, else by name.
    static func position(of id: RegionID, _ regions: [Region]) -> (latitude: Double, longitude: Double)? {
        let match = id.rid.flatMap { rid in regions.last { $0.id.rid == rid } }
            ?? id.created.flatMap { created in regions.last { $0.id.created == created } }
            ?? id.desc.flatMap { desc in regions.last { $0.id.desc == desc } }
        return match.map { ($0.latitude, $0.longitude) }
    }

    /// Events without a position of their own take that of the location fix nearest in time,
    /// within `within` seconds (`points` in time order).
    static func locate(_ events: inout [RegionEvent], from points: [Fix], within: Double) {
        for i in events.indices where events[i].latitude == nil || events[i].longitude == nil {
            let t = events[i].time
            var lo = 0, hi = points.count          // the first point not before t
            while lo < hi { let mid = (lo + hi) / 2; if points[mid].time < t { lo = mid + 1 } else { hi = mid } }
            let nearest = [lo - 1, lo].filter(points.indices.contains).min { abs(points[$0].time - t) < abs(points[$1].time - t) }
            guard let n = nearest, abs(points[n].time - t) <= within else { continue }
            events[i].latitude = points[n].latitude; events[i].longitude = points[n].longitude
        }
    }

    static func midway(_ a: RegionEvent, _ b: RegionEvent) -> (latitude: Double, longitude: Double)? {
        let fixes = [a, b].compactMap { e in e.latitude.flatMap { lat in e.longitude.map { (lat, $0) } } }
        guard !fixes.isEmpty else { return nil }
        return (fixes.map(\.0).reduce(0, +) / Double(fixes.count), fixes.map(\.1).reduce(0, +) / Double(fixes.count))
    }
}
