import FoundationEssentials
import IngestCore

/// Visits and trips derived again from every stored point, stated visit and activity, in time
/// order, day by day, whenever a scan stored something new. Deriving from the whole store, not
/// file by file, is what makes the result independent of file order, names and places.
///
/// Pass 1 runs the points through the shared filter and stay-point detector and merges its
/// visits with the stated ones; pass 2 reads the points again to count each visit's fixes and
/// spread and to build the one trip between each pair of consecutive visits.
struct HistoryPlaces {
    let settings: PlaceTracker.Settings
    /// Which tagged devices' points count, day by day.
    var devices = DevicePicker()
    /// Stated visits and detected ones overlapping in time are one when this close (metres).
    var mergeDistance: Double { 2 * settings.detector.radius }

    struct Derived {
        var visits: [Visit] = []
        var trips: [Trip] = []
        /// The `changes` count of each day group read, to settle it with.
        var changes: [String: Int64] = [:]
        var rejected = 0
        /// Points stored per tagged device.
        var devices: [Int64: Int] = [:]
    }

    /// The days with records, in order.
    static func days(_ records: AdapterRecords) throws -> [String] {
        try records.records(in: HistoryRecords.daysGroup).map { String(decoding: $0.key, as: UTF8.self) }.sorted()
    }

    func derive(_ records: AdapterRecords, now: Double) throws -> Derived {
        let days = try HistoryPlaces.days(records)
        var derived = Derived()
        var detector = VisitDetector(settings: settings.detector)
        var filter = filter()
        // The last state of each visit, in arrival order: one visit is open at a time, so a
        // visit's close follows its open with no other visit between.
        var detected: [Visit] = []
        func take(_ events: [VisitDetector.Event]) {
            for event in events {
                switch event {
                case .opened(let v), .closed(let v):
                    if detected.last?.key == v.key { detected[detected.count - 1] = v } else { detected.append(v) }
                case .trip: break             // trips are built in pass 2, between the merged visits
                }
            }
        }
        var stated: [StatedVisit] = [], activities: [StatedActivity] = []
        var regionEvents: [RegionEvent] = [], regions: [Region] = []
        var stream = HistoryDays(records, days: days, picker: devices)
        while var day = try stream.next() {
            derived.changes[day.group] = day.changes
            stated += day.visits; activities += day.activities
            RegionStays.locate(&day.regionEvents, from: day.points, within: settings.detector.maxGap)
            regionEvents += day.regionEvents; regions += day.regions
            for fix in day.points {
                if filter.check(fix, now: now) != nil { derived.rejected += 1; continue }
                take(detector.add(fix))
            }
        }
        derived.devices = stream.deviceCounts
        take(detector.closeIfStale(now: now))
        stated += RegionStays.visits(regionEvents, regions: regions)
        let visits = merge(detected, stated: stated)
        detected = []; stated = []        // let go before pass 2 builds every visit and trip
        (derived.visits, derived.trips) = try measure(visits, days: days, records, activities: activities, now: now)
        return derived
    }

    private func filter() -> FixFilter {
        FixFilter(maxError: settings.maxError, maxSpeed: settings.maxSpeed, earliest: FixFilter.earliestHistory)
    }

    /// A visit before measuring: its span, where it was, and the key it goes out under.
    struct Member: Hashable {
        var arrival: Double
        var departure: Double?
        var latitude: Double
        var longitude: Double
        var key: String
        /// Detected from points (its position is their median, and wins over a stated one).
        var detected = false

        init(_ v: StatedVisit) {
            arrival = v.start; departure = v.end; latitude = v.latitude; longitude = v.longitude
            key = VisitDetector.key(arrival: v.start, latitude: v.latitude, longitude: v.longitude)
        }

        init(_ v: Visit) {
            arrival = v.arrival; departure = v.departure; latitude = v.latitude; longitude = v.longitude; key = v.key; detected = true
        }

        var end: Double { departure ?? .infinity }
    }

    /// Visits that overlap in time and lie within `mergeDistance` are one: from the earliest
    /// arrival to the latest departure, under the earliest member's key, at the detected
    /// position if a member was detected. Timeline.json's nested visits (hierarchy levels 0 and
    /// 1 over the same stay) merge so too.
    func merge(_ detected: [Visit], stated: [StatedVisit]) -> [Member] {
        let all = (detected.map(Member.init) + stated.map(Member.init)).sorted {
            $0.arrival != $1.arrival ? $0.arrival < $1.arrival : $0.key < $1.key
        }
        var merged: [Member] = []
        merged.reserveCapacity(all.count)
        for next in all {
            if var last = merged.last, next.arrival <= last.end,
               Geo.distance(last.latitude, last.longitude, next.latitude, next.longitude) <= mergeDistance {
                last.departure = last.departure == nil || next.departure == nil ? nil : max(last.end, next.end)
                if next.detected, !last.detected { last.latitude = next.latitude; last.longitude = next.longitude; last.detected = true }
                merged[merged.count - 1] = last
            } else {
                merged.append(next)
            }
        }
        return merged
    }

    /// Pass 2: each visit's distinct fixes and their spread (the distance from its position
    /// within which 68 % lie), and the trip from each visit's departure to the next one's
    /// arrival over the points between, its mode the overlapping stated activity's where one is.
    func measure(_ members: [Member], days: [String], _ records: AdapterRecords, activities: [StatedActivity],
                 now: Double) throws -> ([Visit], [Trip]) {
        func fix(_ m: Member, at time: Double) -> Fix { Fix(time: time, latitude: m.latitude, longitude: m.longitude) }
        var visits: [Visit] = [], trips: [Trip] = []
        visits.reserveCapacity(members.count)
        trips.reserveCapacity(members.count)
        let stated = activities.filter { $0.mode != .unknown }.sorted { $0.start < $1.start }
        var firstActivity = 0      // the first stated activity not over before the trip
        var spread: [Float] = []   // distances of the current visit's fixes from its position
        var leg: TripBuilder?      // the trip from the last visit's departure, growing
        // A visit is summed up, and the trip to it finished, as soon as the points pass it.
        func settle(_ v: Int) {
            let m = members[v]
            spread.sort()
            let p68 = spread.isEmpty ? 0 : Double(spread[min(spread.count - 1, Int(Double(spread.count) * 0.68))])
            visits.append(Visit(arrival: m.arrival, departure: m.departure, latitude: m.latitude, longitude: m.longitude,
                                accuracy: (p68 * 10).rounded() / 10, fixes: spread.count, key: m.key))
            spread.removeAll(keepingCapacity: true)
            if var trip = leg {
                trip.extend(to: fix(m, at: m.arrival))
                var done = trip.finish()
                while firstActivity < stated.count, stated[firstActivity].end <= done.start.time { firstActivity += 1 }
                if let mode = HistoryPlaces.statedMode(stated[firstActivity...], from: done.start.time, to: done.end.time) { done.mode = mode }
                trips.append(done)
            }
            leg = m.departure.map { TripBuilder(start: fix(m, at: $0)) }
        }
        var filter = filter()
        var v = 0      // the first visit not over before the point
        var stream = HistoryDays(records, days: days, picker: devices)
        while v < members.count, let day = try stream.next() {
            for point in day.points where filter.check(point, now: now) == nil {
                while v < members.count, point.time > members[v].end { settle(v); v += 1 }
                guard v < members.count else { break }
                if point.time >= members[v].arrival {
                    spread.append(Float(Geo.distance(members[v].latitude, members[v].longitude, point.latitude, point.longitude)))
                } else {
                    leg?.extend(to: point)
                }
            }
        }
        while v < members.count { settle(v); v += 1 }
        return (visits, trips)
    }

    /// The mode of the stated activity (sorted by start) overlapping `from…to` the most.
    static func statedMode(_ activities: ArraySlice<StatedActivity>, from: Double, to: Double) -> Trip.Mode? {
        var best: (overlap: Double, mode: Trip.Mode)?
        for a in activities {
            if a.start >= to { break }
            let overlap = min(a.end, to) - max(a.start, from)
            if overlap > 0, overlap > best?.overlap ?? 0 { best = (overlap, a.mode) }
        }
        return best?.mode
    }
}
