import IngestCore

/// The stored UTC days in order, each with its points as the detector is to see them: the
/// untagged ones and the tagged devices' points ``DevicePicker`` chooses, sorted and one per
/// second. A local day can reach into the UTC days on either side, so a day is given out once
/// the next one is read, with the hour counts of its neighbours; three days are held at most.
struct HistoryDays {
    let records: AdapterRecords
    let names: [String]
    let picker: DevicePicker
    /// Points stored per device, by day group, over every day read (what the first import warns of).
    private(set) var deviceCounts: [String: [Int64: Int]] = [:]
    /// Stated records a store from before the stated shelf keeps among the points, moved to it.
    private(set) var unshelved: [StateRecord] = []
    private var loaded: [Int: Loaded] = [:]
    private(set) var index: Int
    /// Points before this are not given out: a derivation that resumes there starts at its anchor.
    let from: Double

    struct Loaded {
        var changes: Int64
        var day: HistoryRecords.Day
        /// Counted only when the days around hold two devices or more.
        var hours: DevicePicker.HourCounts?
    }

    struct Out {
        var group: String
        var changes: Int64
        var points: [Fix]
        var visits: [StatedVisit]
        var activities: [StatedActivity]
        var regionEvents: [RegionEvent]
        var regions: [Region]
    }

    init(_ records: AdapterRecords, days: [String], picker: DevicePicker, start: Int = 0, from: Double = -.infinity) {
        self.records = records; names = days; self.picker = picker; index = start; self.from = from
    }

    mutating func next() throws -> Out? {
        guard index < names.count else { return nil }
        for i in max(0, index - 1)...min(names.count - 1, index + 1) where loaded[i] == nil { loaded[i] = try load(i) }
        loaded[index - 2] = nil
        let window = (index - 1)...(index + 1)
        let current = loaded[index]!
        var chosen: [Fix] = []
        if Set(window.flatMap { loaded[$0]?.day.devices.keys.filter(picker.admits) ?? [] }).count > 1 {
            var hours: DevicePicker.HourCounts = [:]
            for i in window {
                guard var day = loaded[i] else { continue }
                if day.hours == nil {
                    var counted = DevicePicker.HourCounts()
                    picker.count(day.day.devices, into: &counted)
                    day.hours = counted
                    loaded[i] = day
                }
                for (hour, counts) in day.hours ?? [:] { hours[hour, default: [:]].merge(counts, uniquingKeysWith: +) }
            }
            chosen = picker.choose(current.day.devices, hours: hours)
        } else {
            chosen = current.day.devices.filter { picker.admits($0.key) }.flatMap(\.value)
        }
        let group = HistoryRecords.group(day: names[index])
        index += 1
        var points = HistoryRecords.deduplicated(current.day.points + chosen)
        if let first = points.first, first.time < from { points.removeFirst(points.firstIndex { $0.time >= from } ?? points.count) }
        return Out(group: group, changes: current.changes, points: points,
                   visits: current.day.visits, activities: current.day.activities,
                   regionEvents: current.day.regionEvents, regions: current.day.regions)
    }

    private mutating func load(_ i: Int) throws -> Loaded {
        let name = HistoryRecords.group(day: names[i])
        let group = try records.group(name)
        let loaded = Loaded(changes: group.changes, day: HistoryRecords.decode(group.records))
        deviceCounts[name] = loaded.day.devices.mapValues(\.count)
        unshelved += group.records.filter { $0.shelf == 0 && ($0.key.first.flatMap(HistoryRecords.Kind.init)?.shelf ?? 0) != 0 }
            .map { StateRecord(group: $0.group, shelf: HistoryRecords.statedShelf, key: $0.key, value: $0.value) }
        return loaded
    }
}
