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
    /// Stated visits and detected ones overlapping in time are one when this close (metres).
    var mergeDistance: Double { 2 * settings.detector.radius }

    struct Derived {
        var visits: [Visit] = []
        var trips: [Trip] = []
        /// The `changes` count of each day group read, to settle it with.
        var changes: [String: Int64] = [:]
        var rejected = 0
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
        var events: [VisitDetector.Event] = []
        var stated: [StatedVisit] = [], activities: [StatedActivity] = []
        for day in days {
            let group = try records.group(HistoryRecords.group(day: day))
            derived.changes[HistoryRecords.group(day: day)] = group.changes
            let (points, visits, acts) = HistoryRecords.decode(group.records)
            stated += visits; activities += acts
            for fix in points {
                if filter.check(fix, now: now) != nil { derived.rejected += 1; continue }
                events += detector.add(fix)
            }
        }
        events += detector.closeIfStale(now: now)
        var detected: [String: Visit] = [:]
        for case .opened(let v) in events { detected[v.key] = v }
        for case .closed(let v) in events { detected[v.key] = v }
        let visits = merge(Array(detected.values), stated: stated)
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
        var spreads = [[Double]](repeating: [], count: members.count)
        var legs: [TripBuilder?] = members.indices.dropLast().map { i in members[i].departure.map { TripBuilder(start: fix(members[i], at: $0)) } }
        var filter = filter()
        var v = 0      // the first visit not over before the fix
        for day in days {
            let points = HistoryRecords.decode(try records.records(in: HistoryRecords.group(day: day))).points
            for point in points where filter.check(point, now: now) == nil {
                while v < members.count, point.time > members[v].end { v += 1 }
                guard v < members.count else { break }
                if point.time >= members[v].arrival {
                    spreads[v].append(Geo.distance(members[v].latitude, members[v].longitude, point.latitude, point.longitude))
                } else if v > 0 {
                    legs[v - 1]?.extend(to: point)
                }
            }
        }
        let visits = members.indices.map { i in
            var spread = spreads[i]
            spread.sort()
            let p68 = spread.isEmpty ? 0 : spread[min(spread.count - 1, Int(Double(spread.count) * 0.68))]
            let m = members[i]
            return Visit(arrival: m.arrival, departure: m.departure, latitude: m.latitude, longitude: m.longitude,
                         accuracy: (p68 * 10).rounded() / 10, fixes: spread.count, key: m.key)
        }
        var trips: [Trip] = []
        let stated = activities.filter { $0.mode != .unknown }.sorted { $0.start < $1.start }
        var first = 0      // the first stated activity not over before the trip
        for (i, leg) in legs.enumerated() {
            guard var leg else { continue }
            leg.extend(to: fix(members[i + 1], at: members[i + 1].arrival))
            var trip = leg.finish()
            while first < stated.count, stated[first].end <= trip.start.time { first += 1 }
            if let mode = HistoryPlaces.statedMode(stated[first...], from: trip.start.time, to: trip.end.time) { trip.mode = mode }
            trips.append(trip)
        }
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
