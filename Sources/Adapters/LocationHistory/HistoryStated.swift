import IngestCore

/// What exports state beside their points: visits (Semantic Location History, Timeline, and
/// those OwnTracks region events make), activities, region events and waypoints.
struct HistoryStated {
    var visits: [StatedVisit] = []
    var activities: [StatedActivity] = []
    var regionEvents: [RegionEvent] = []
    var regions: [Region] = []

    mutating func add(_ day: HistoryDays.Out) {
        visits += day.visits; activities += day.activities; regionEvents += day.regionEvents; regions += day.regions
    }

    /// Adds the stated visits the region events make (from each enter to its leave, in any
    /// day), and returns them.
    mutating func addRegionStays() -> [StatedVisit] {
        let stays = RegionStays.visits(regionEvents, regions: regions)
        visits += stays
        return stays
    }

    /// Whether no stated visit that began before `time` lasts until it: then no visit before
    /// `time` merges with one after.
    func isClear(at time: Double) -> Bool { !visits.contains { $0.start < time && $0.end >= time } }

    /// Every day's stated records, from their shelf, without the points; a region event without
    /// a position takes it from its day's points, as when the day is derived.
    static func read(_ records: AdapterRecords, days: [String], places: HistoryPlaces) throws -> HistoryStated {
        var stated = HistoryStated()
        var unlocated: [(day: String, events: [RegionEvent])] = []
        for group in try records.groups(onShelf: HistoryRecords.statedShelf) where group.hasPrefix("d:") {
            let day = HistoryRecords.decode(try records.records(in: group, shelf: HistoryRecords.statedShelf))
            stated.visits += day.visits; stated.activities += day.activities; stated.regions += day.regions
            if day.regionEvents.allSatisfy({ $0.latitude != nil && $0.longitude != nil }) { stated.regionEvents += day.regionEvents }
            else { unlocated.append((String(group.dropFirst(2)), day.regionEvents)) }
        }
        for (day, var events) in unlocated {
            if let at = days.firstIndex(of: day) {
                var stream = HistoryDays(records, days: days, picker: places.devices, start: at)
                let points = try stream.next()?.points ?? []
                RegionStays.locate(&events, from: points, within: places.settings.detector.maxGap)
            }
            stated.regionEvents += events
        }
        return stated
    }
}
