import FoundationEssentials
import IngestCore

/// Visits and trips derived from the stored points, stated visits and activities, in time
/// order, day by day. Deriving from the store, not file by file, is what makes the result
/// independent of file order, names and places. A derivation reads every day
/// (the default ``Plan``) or resumes at a day where the last one left the detector and reads on until
/// it meets the last one again (``HistoryWindows``); either gives the same items.
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
        /// Where the detector stood after each day group read (``VisitDetector/anchorTime``).
        var anchors: [String: Double?] = [:]
        var rejected = 0
        /// Points stored per tagged device, by day group read.
        var devices: [String: [Int64: Int]] = [:]
        /// The stated visits OwnTracks region events made (a whole derivation's).
        var regionStays: [StatedVisit] = []
        /// Stated records of an older store to put on their shelf (``HistoryDays/unshelved``).
        var unshelved: [StateRecord] = []
        /// The index of the day after which the detector stood where the last derivation had it,
        /// over unchanged points: items from the next day on are as they were.
        var rejoined: Int?
    }

    /// Which days a derivation reads, from where.
    struct Plan {
        /// The index of the first day read, and the anchor the detector resumes at (no point
        /// before it is read): the one the last derivation recorded for the day before.
        var start = 0
        var from = -Double.infinity
        /// Every stated visit and activity of the store; nil: read with the days (all of them).
        var stated: HistoryStated?
        var rejoin: Rejoin?
    }

    /// Where a derivation may stop: after day `after`, at a day whose recorded anchor (`old`)
    /// it meets at or after `from`, from which on the points are as the last derivation read them.
    struct Rejoin {
        var after: Int
        var from: Double
        var old: (String) throws -> Double?
    }

    /// The days with records, in order.
    static func days(_ records: AdapterRecords) throws -> [String] {
        try records.records(in: HistoryRecords.daysGroup).map { String(decoding: $0.key, as: UTF8.self) }.sorted()
    }

    func derive(_ records: AdapterRecords, days: [String], plan: Plan = Plan(), now: Double) throws -> Derived {
        var derived = Derived()
        var pass = HistoryDetection(places: self, stated: plan.stated ?? HistoryStated(), from: plan.from)
        var stream = HistoryDays(records, days: days, picker: devices, start: plan.start, from: plan.from)
        while var day = try stream.next() {
            derived.changes[day.group] = day.changes
            if plan.stated == nil {
                RegionStays.locate(&day.regionEvents, from: day.points, within: settings.detector.maxGap)
                pass.stated.add(day)
            }
            derived.rejected += pass.add(day.points, now: now)
            let anchor = pass.detector.anchorTime
            derived.anchors[day.group] = anchor
            if let rejoin = plan.rejoin, derived.rejoined == nil, stream.index > rejoin.after, stream.index < days.count,
               let anchor, anchor >= rejoin.from, try rejoin.old(day.group) == anchor, pass.stated.isClear(at: anchor) {
                derived.rejoined = stream.index - 1
            }
            if let r = derived.rejoined, pass.settles(before: HistoryTime.start(ofDay: days[r + 1])) { break }
        }
        let end = stream.index
        if end == days.count { pass.closeIfStale(now: now) }
        derived.devices = stream.deviceCounts
        derived.unshelved = stream.unshelved
        if plan.stated == nil { derived.regionStays = pass.stated.addRegionStays() }
        let visits = pass.merged(complete: end == days.count)
        let activities = pass.stated.activities
        pass = HistoryDetection(places: self, stated: HistoryStated(), from: plan.from)      // let go before pass 2
        (derived.visits, derived.trips) = try measure(visits, days: days, records, plan: plan, end: end,
                                                      activities: activities, now: now)
        return derived
    }

    func filter() -> FixFilter {
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
    func measure(_ members: [Member], days: [String], _ records: AdapterRecords, plan: Plan, end: Int,
                 activities: [StatedActivity], now: Double) throws -> ([Visit], [Trip]) {
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
        var stream = HistoryDays(records, days: days, picker: devices, start: plan.start, from: plan.from)
        while v < members.count, stream.index < end, let day = try stream.next() {
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
