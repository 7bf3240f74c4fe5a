import IngestCore

/// A visit an export states itself: a Semantic Location History `placeVisit` or a Timeline.json
/// `visit` segment.
struct StatedVisit: Equatable, Sendable {
    var start: Double
    var end: Double
    var latitude: Double
    var longitude: Double
}

/// An export's own activity (`activitySegment`, Timeline.json `activity`): it names the mode of
/// the trip it overlaps, and is no trip of its own.
struct StatedActivity: Equatable, Sendable {
    var start: Double
    var end: Double
    var mode: Trip.Mode

    /// Google's activity types as the node's modes: `IN_PASSENGER_VEHICLE` (Takeout, Android),
    /// `in passenger vehicle` (the iPhone's export), `WALK`/`DRIVE` (an old `waypointPath`'s
    /// `travelMode`); anything unnamed (flying, still) is unknown.
    static func mode(_ type: String) -> Trip.Mode {
        switch type.uppercased().split(separator: " ").joined(separator: "_") {
        case "WALKING", "ON_FOOT", "WALK", "HIKING": .walking
        case "RUNNING", "RUN": .running
        case "CYCLING", "ON_BICYCLE", "BICYCLE", "BIKING": .cycling
        case "IN_PASSENGER_VEHICLE", "IN_VEHICLE", "DRIVING", "DRIVE", "IN_CAR", "IN_BUS", "IN_TAXI", "MOTORCYCLING",
             "IN_TRAIN", "IN_SUBWAY", "IN_TRAM", "IN_FERRY", "IN_CABLECAR", "IN_FUNICULAR", "IN_GONDOLA_LIFT",
             "IN_WHEELCHAIR", "IN_ROAD_VEHICLE", "IN_RAIL_VEHICLE", "AUTOMOTIVE", "TRANSIT": .driving
        default: .unknown
        }
    }
}

/// What the parsers of one file gathered since the last flush, and what they could not read.
struct HistoryBatch {
    var points: [Fix] = []
    /// Points an export names a device for (Records.json `deviceTag`, Timeline Edits `deviceId`):
    /// kept apart, as two devices' points must never make one stay or trip.
    var devicePoints: [Int64: [Fix]] = [:]
    private var devicePointCount = 0
    /// Devices' names by tag (Takeout's Settings.json), to name them in the devices warning.
    var deviceNames: [Int64: String] = [:]
    var visits: [StatedVisit] = []
    var activities: [StatedActivity] = []
    /// OwnTracks region events and the regions' waypoints, paired into stated visits only when
    /// deriving (an enter and its leave may lie in two monthly files).
    var regionEvents: [RegionEvent] = []
    var regions: [Region] = []
    var read = 0
    var bad = 0
    var firstBad: Int?

    mutating func reject(line: Int) {
        bad += 1
        if firstBad == nil { firstBad = line }
    }

    mutating func add(_ fix: Fix, device: Int64?) {
        guard let device else { points.append(fix); return }
        devicePoints[device, default: []].append(fix)
        devicePointCount += 1
    }

    var isFull: Bool { points.count + devicePointCount >= 50_000 }

    /// The batch as records: points packed per UTC day and hour, stated visits and activities
    /// one record each, every record keyed by its time and a digest of its content, so the same
    /// content read again (or from a renamed or moved copy) is the same record. Each day is also
    /// listed in the `days` group, so a rebuild finds them in order.
    mutating func takeRecords() -> [StateRecord] {
        var records: [StateRecord] = []
        var days = Set<String>()
        for (device, fixes) in [(nil, points)] + devicePoints.map({ ($0.key, $0.value) }) {
            records += HistoryBatch.pointRecords(fixes, device: device, days: &days)
        }
        for v in visits where HistoryBatch.plausible(v.start) && HistoryBatch.plausible(v.end) {
            let day = HistoryTime.day(v.start)
            days.insert(day)
            records.append(HistoryRecords.record(day: day, kind: .visit, time: v.start, value: Array("\(v.start) \(v.end) \(v.latitude) \(v.longitude)".utf8)))
        }
        for a in activities where HistoryBatch.plausible(a.start) && HistoryBatch.plausible(a.end) {
            let day = HistoryTime.day(a.start)
            days.insert(day)
            records.append(HistoryRecords.record(day: day, kind: .activity, time: a.start, value: Array("\(a.start) \(a.end) \(a.mode.rawValue)".utf8)))
        }
        for e in regionEvents where HistoryBatch.plausible(e.time) {
            let day = HistoryTime.day(e.time)
            days.insert(day)
            records.append(HistoryRecords.record(day: day, kind: .regionEvent, time: e.time, value: e.record))
        }
        for r in regions {
            let created = r.id.created.flatMap { HistoryBatch.plausible($0) ? $0 : nil } ?? 0
            let day = HistoryTime.day(created)
            days.insert(day)
            records.append(HistoryRecords.record(day: day, kind: .region, time: created, value: r.record))
        }
        records += days.map { StateRecord(group: HistoryRecords.daysGroup, key: Array($0.utf8), value: []) }
        records += deviceNames.map { StateRecord(group: HistoryRecords.devicesGroup, key: Array(String($0.key).utf8), value: Array($0.value.utf8)) }
        points = []; devicePoints = [:]; devicePointCount = 0; deviceNames = [:]; visits = []; activities = []
        regionEvents = []; regions = []
        return records
    }

    /// One record per UTC hour of `fixes`; a device's start with its tag (8 bytes, little endian).
    private static func pointRecords(_ fixes: [Fix], device: Int64?, days: inout Set<String>) -> [StateRecord] {
        var byHour: [Int64: [Fix]] = [:]
        for fix in fixes where plausible(fix.time) { byHour[Int64((fix.time / 3600).rounded(.down)), default: []].append(fix) }
        return byHour.map { hour, fixes in
            var packed: [UInt8] = []
            packed.reserveCapacity(8 + fixes.count * Fix.packedSize)
            if let device { withUnsafeBytes(of: device.littleEndian) { packed.append(contentsOf: $0) } }
            for fix in fixes.sorted(by: order) { fix.pack(into: &packed) }
            let day = HistoryTime.day(Double(hour) * 3600)
            days.insert(day)
            return HistoryRecords.record(day: day, kind: device == nil ? .points : .devicePoints, time: Double(hour) * 3600, value: packed)
        }
    }

    /// A time that has a day (the filter judges it later): finite, and within years 1 to 5000.
    static func plausible(_ time: Double) -> Bool { time.isFinite && abs(time) < 9.5e10 }

    /// Time first, then content: the same points pack the same bytes whatever their file order.
    static func order(_ a: Fix, _ b: Fix) -> Bool {
        if a.time != b.time { return a.time < b.time }
        if a.latitude != b.latitude { return a.latitude < b.latitude }
        return a.longitude < b.longitude
    }
}

/// The layout of the adapter's records: a group per UTC day (`d:YYYY-MM-DD`) holding that day's
/// point chunks (`p`, and `t` for a tagged device's), stated visits (`v`), activities (`a`),
/// OwnTracks region events (`e`) and waypoints (`w`, under the day the region was made); `days`,
/// listing the days, whose settled state is the key and version each item went out with; and
/// `devices`, holding the devices' names (tag → name) and, as its settled state, the devices the
/// user was told of.
enum HistoryRecords {
    enum Kind: UInt8 {
        case points = 0x70, devicePoints = 0x74, visit = 0x76, activity = 0x61, regionEvent = 0x65, region = 0x77   // p, t, v, a, e, w

        /// Stated visits, activities and region records: few, and read from every day whatever
        /// days are derived again (a stated visit or a region's enter and leave can lie days
        /// apart), so they sit on a shelf of their own, read without the points.
        var shelf: UInt8 { self == .points || self == .devicePoints ? 0 : HistoryRecords.statedShelf }
    }
    static let statedShelf: UInt8 = 1
    static let daysGroup = "days"
    static let devicesGroup = "devices"

    /// One UTC day's records, read.
    struct Day {
        var points: [Fix] = []
        var devices: [Int64: [Fix]] = [:]
        var visits: [StatedVisit] = []
        var activities: [StatedActivity] = []
        var regionEvents: [RegionEvent] = []
        var regions: [Region] = []
    }

    static func group(day: String) -> String { "d:" + day }

    static func record(day: String, kind: Kind, time: Double, value: [UInt8]) -> StateRecord {
        let key = [kind.rawValue] + StateRecord.orderedKey(time) + Array(Digest.sha256Hex(value, length: 16).utf8)
        return StateRecord(group: group(day: day), shelf: kind.shelf, key: key, value: value)
    }

    /// One day's points (untagged, and each device's apart), stated visits, activities, region
    /// events and waypoints.
    static func decode(_ records: [StateRecord]) -> Day {
        var day = Day()
        var seen = Set<[UInt8]>()     // a store from before the stated shelf may hold a record on both
        for record in records.sorted(by: { $0.key.lexicographicallyPrecedes($1.key) }) where seen.insert(record.key).inserted {
            switch record.key.first.flatMap(Kind.init) {
            case .points: day.points += Fix.unpack(record.value)
            case .devicePoints where record.value.count >= 8:
                let tag = record.value.prefix(8).reversed().reduce(Int64(0)) { $0 << 8 | Int64($1) }
                day.devices[tag, default: []] += Fix.unpack(Array(record.value.dropFirst(8)))
            case .visit:
                let f = String(decoding: record.value, as: UTF8.self).split(separator: " ").compactMap { Double($0) }
                if f.count == 4 { day.visits.append(StatedVisit(start: f[0], end: f[1], latitude: f[2], longitude: f[3])) }
            case .activity:
                let f = String(decoding: record.value, as: UTF8.self).split(separator: " ")
                if f.count == 3, let start = Double(f[0]), let end = Double(f[1]), let mode = Trip.Mode(rawValue: String(f[2])) {
                    day.activities.append(StatedActivity(start: start, end: end, mode: mode))
                }
            case .regionEvent: if let e = RegionEvent(record: record.value) { day.regionEvents.append(e) }
            case .region: if let r = Region(record: record.value) { day.regions.append(r) }
            case .devicePoints, nil: break
            }
        }
        return day
    }

    /// Points sorted, one per second: of copies within a second, the one with the smallest
    /// error, then the smallest coordinates, survives, whatever file it came from.
    static func deduplicated(_ points: [Fix]) -> [Fix] {
        var out: [Fix] = []
        out.reserveCapacity(points.count)
        for fix in points.sorted(by: { a, b in
            let sa = a.time.rounded(), sb = b.time.rounded()
            if sa != sb { return sa < sb }
            let ea = a.error ?? .infinity, eb = b.error ?? .infinity
            return ea != eb ? ea < eb : HistoryBatch.order(a, b)
        }) {
            if let last = out.last, last.time.rounded() == fix.time.rounded() { continue }
            out.append(fix)
        }
        return out
    }
}
