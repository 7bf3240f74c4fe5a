import FoundationEssentials
import IngestCore

/// A stay: where the person was, from arrival to departure (nil while still there).
struct Visit: Sendable, Equatable {
    var arrival: Double
    var departure: Double?
    var latitude: Double
    var longitude: Double
    /// The distance from the visit's position within which 68 % of its fixes lie.
    var accuracy: Double
    /// Distinct fixes: the filter lets no two fixes share a time.
    var fixes: Int
    /// From the arrival fix, so the open and the closed visit share it.
    var key: String
}

/// A trip between two consecutive visits.
struct Trip: Sendable, Equatable {
    enum Mode: String, Sendable { case walking, running, cycling, driving, unknown }
    var start: Fix
    var end: Fix
    var distance: Double
    var mode: Mode
    var key: String
}

/// Stay-point detection (Li et al. 2008, as in scikit-mobility and trackintel), streaming, made
/// to hold on sparse, noisy fixes.
///
/// The anchor is the first fix not yet settled; fixes that stay within `radius` of it, with no
/// gap over `maxGap` between them, form its cluster. Once the cluster spans `minStay`, it is a
/// visit. From then on fixes are measured from the visit's centre (the mean of its fixes), not
/// from the anchor, which on arrival may lie near the radius edge; and a fix beyond the radius
/// ends the visit only when the fix after it is beyond too (one stray fix is noise), or when a gap
/// over `maxGap` follows. A cluster that breaks before `minStay` gives its anchor to the current
/// trip and the next fix becomes the anchor. A trip runs from one visit's departure to the next
/// one's arrival: one per pair of consecutive visits, none before the first. Every rule uses the fixes' own times, so
/// replaying a log gives what living it gave.
///
/// Phones go quiet when still (and die overnight), so a silence over `maxGap` ends a stay only
/// when it ends elsewhere: when the first fix after it lies within `radius` of the stay's centre
/// (of the anchor, for a cluster not yet a visit) and the silence is at most `bridgeGap`, the stay
/// goes on across it, and an open visit is sent again as open (a timer `run` may have closed it
/// by the wall clock meanwhile). A silence that ends elsewhere ends the stay at its last fix before it.
struct VisitDetector {
    struct Settings: Sendable {
        var radius = 100.0          // metres
        var minStay = 300.0         // seconds
        var maxGap = 900.0          // seconds
        /// The longest silence a stay goes on across when the next fix is back within `radius`.
        var bridgeGap = 86_400.0    // seconds

        /// The longest silence between two fixes of one stay.
        var longestSilence: Double { max(maxGap, bridgeGap) }
    }

    enum Event: Sendable, Equatable {
        case opened(Visit)
        case closed(Visit)
        case trip(Trip)
    }

    let settings: Settings
    /// Unsettled fixes: `pending[head]` is the anchor; `[head..<scan]` its cluster so far.
    private var pending: [Fix] = []
    private var head = 0
    private var scan = 0
    private var open: Visit?
    /// The open visit's centre: the sums of the latitudes and longitudes of its fixes within radius.
    private var centre = (latitude: 0.0, longitude: 0.0, count: 0.0)
    private var trip: TripBuilder?

    /// Where a restart must replay the journal from, and whether that fix starts a trip (it is
    /// the departure of the last closed visit) — everything before it is settled and sent.
    var resumePoint: (time: Double, startsTrip: Bool)? {
        if let trip { return (trip.start.time, true) }
        return pending.indices.contains(head) ? (pending[head].time, false) : nil
    }

    var isVisitOpen: Bool { open != nil }

    /// The time of the anchor, the first fix not settled (nil before any fix). Every event from
    /// here on follows from this fix and the ones after it alone: a new detector fed them from
    /// it gives the same visits (only its trip, which starts at a departure before, is missing).
    var anchorTime: Double? { pending.indices.contains(head) ? pending[head].time : nil }

    init(settings: Settings, resumingTripFrom start: Fix? = nil) {
        self.settings = settings
        if let start { trip = TripBuilder(start: start) }
    }

    mutating func add(_ fix: Fix) -> [Event] {
        pending.append(fix)
        if scan == head { scan = head + 1 }       // a lone anchor: its cluster is itself
        var events: [Event] = []
        while scan < pending.count {
            if open != nil {
                let bridged = pending[scan].time - pending[scan - 1].time > settings.maxGap
                guard let ended = stepOpenVisit() else { break }     // waiting for the fix after a stray one
                if ended { events.append(.closed(closeVisit(departingAt: scan - 1))) }
                else if bridged { events.append(.opened(summarize(pending[head..<scan], arrival: pending[head], departure: nil))) }
                continue
            }
            let next = pending[scan], anchor = pending[head]
            if next.time - pending[scan - 1].time <= settings.longestSilence, Geo.distance(anchor, next) <= settings.radius {
                scan += 1
                if next.time - anchor.time >= settings.minStay { events += openVisit() }
            } else {
                advanceAnchor()
            }
        }
        compact()
        return events
    }

    /// `run` without a live watcher: a visit whose last fix lies more than `maxGap` before the
    /// wall clock is over as far as anyone knows, departed at its last fix within the radius. The
    /// detector keeps it open all the same (so does the state a restart resumes from): the next
    /// fix may still come back within `radius` before `bridgeGap`, and then the stay goes on.
    func closeIfStale(now: Double) -> [Event] {
        guard open != nil, let last = pending.last, now - last.time > settings.maxGap else { return [] }
        return [.closed(summarize(pending[head..<scan], arrival: pending[head], departure: pending[scan - 1].time))]
    }

    /// One step of an open visit over `pending[scan]`: false when the fix belongs to the visit
    /// (taken in), true when the visit ended before it, nil when that needs the next fix.
    private mutating func stepOpenVisit() -> Bool? {
        let next = pending[scan], silence = next.time - pending[scan - 1].time
        if silence > settings.maxGap, silence > settings.bridgeGap || !isNearCentre(next) { return true }
        if isNearCentre(next) {
            centre = (centre.latitude + next.latitude, centre.longitude + next.longitude, centre.count + 1)
            scan += 1
            return false
        }
        guard scan + 1 < pending.count else { return nil }
        let after = pending[scan + 1]
        guard after.time - next.time <= settings.maxGap, isNearCentre(after) else { return true }
        scan += 1       // a stray fix between two of the stay: noise, the stay goes on
        return false
    }

    private func isNearCentre(_ fix: Fix) -> Bool {
        Geo.distance(centre.latitude / centre.count, centre.longitude / centre.count, fix.latitude, fix.longitude) <= settings.radius
    }

    // MARK: - Steps

    private mutating func openVisit() -> [Event] {
        var events: [Event] = []
        let arrival = pending[head]
        if var trip {
            trip.extend(to: arrival)
            events.append(.trip(trip.finish()))
            self.trip = nil
        }
        let cluster = pending[head..<scan]
        centre = (cluster.reduce(0) { $0 + $1.latitude }, cluster.reduce(0) { $0 + $1.longitude }, Double(cluster.count))
        let visit = summarize(cluster, arrival: arrival, departure: nil)
        open = visit
        events.append(.opened(visit))
        return events
    }

    private mutating func closeVisit(departingAt last: Int) -> Visit {
        let departure = pending[last]
        let visit = summarize(pending[head...last], arrival: pending[head], departure: departure.time)
        open = nil
        trip = TripBuilder(start: departure)
        head = last + 1
        scan = head + 1
        return visit
    }

    /// The anchor could not hold a stay: it becomes part of the trip, if a visit came before (a
    /// trip is what lies between two visits, so fixes before the first visit make none); the
    /// next fix is the anchor.
    private mutating func advanceAnchor() {
        trip?.extend(to: pending[head])
        head += 1
        scan = head + 1
    }

    /// Drops settled fixes from the front now and then, so memory follows the open window only.
    private mutating func compact() {
        guard head > 4096, head * 2 > pending.count else { return }
        pending.removeFirst(head)
        scan -= head
        head = 0
    }

    private func summarize(_ cluster: ArraySlice<Fix>, arrival: Fix, departure: Double?) -> Visit {
        let lat = median(cluster.map(\.latitude)), lon = median(cluster.map(\.longitude))
        var spread = cluster.map { Geo.distance(lat, lon, $0.latitude, $0.longitude) }
        spread.sort()
        let accuracy = spread.isEmpty ? 0 : spread[min(spread.count - 1, Int(Double(spread.count) * 0.68))]
        return Visit(arrival: arrival.time, departure: departure, latitude: lat, longitude: lon,
                     accuracy: (accuracy * 10).rounded() / 10, fixes: cluster.count,
                     key: VisitDetector.key(arrival: arrival.time, latitude: arrival.latitude, longitude: arrival.longitude))
    }

    private func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        let mid = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
    }

    /// A visit's key: from its arrival time and where it arrived (4 decimals, about 11 m).
    static func key(arrival: Double, latitude: Double, longitude: Double) -> String {
        Digest.sha256Hex("\(Int64(arrival.rounded()))|\(rounded4(latitude))|\(rounded4(longitude))", length: 32, prefix: "visit:")
    }

    static func rounded4(_ v: Double) -> String { String(Double(Int64((v * 1e4).rounded())) / 1e4) }
}

/// Distance and speeds of a trip as its fixes settle.
struct TripBuilder: Sendable {
    let start: Fix
    private(set) var last: Fix
    private var distance = 0.0
    /// Distance is summed between points at least this far apart: summing every 1 s step adds
    /// the noise of each fix (±4 m noise more than doubles a walk's length).
    static let minStep = 15.0
    private var counted: Fix
    /// Speeds over ground: the receiver's where it gave one, else over ~10 s of fixes (single
    /// 1 s steps are mostly noise at walking pace).
    private var speeds: [Float] = []
    private var window: [Fix] = []

    init(start: Fix) { self.start = start; self.last = start; self.counted = start; window = [start] }

    mutating func extend(to fix: Fix) {
        let step = Geo.distance(counted, fix)
        if step >= TripBuilder.minStep { distance += step; counted = fix }
        last = fix
        if let speed = fix.speed { speeds.append(speed); return }
        window.append(fix)
        if fix.time - window[0].time >= 10 {
            speeds.append(Float(Geo.distance(window[0], fix) / (fix.time - window[0].time)))
            window = [fix]
        }
    }

    /// walking < 2.5 m/s ≤ running < 4.5 m/s ≤ cycling < 9 m/s ≤ driving, on the 85th percentile
    /// of speeds (stops at lights do not make a drive a walk); unknown below 0.5 m/s or with fewer
    /// than 3 speeds.
    static func mode(_ speeds: [Float]) -> Trip.Mode {
        guard speeds.count >= 3 else { return .unknown }
        let p85 = Double(speeds.sorted()[Int(Double(speeds.count - 1) * 0.85)])
        switch p85 {
        case ..<0.5: return .unknown
        case ..<2.5: return .walking
        case ..<4.5: return .running
        case ..<9: return .cycling
        default: return .driving
        }
    }

    func finish() -> Trip {
        let distance = self.distance + Geo.distance(counted, last)
        let identity = "\(Int64(start.time.rounded()))|\(Int64(last.time.rounded()))"
        return Trip(start: start, end: last, distance: distance.rounded(), mode: TripBuilder.mode(speeds),
                    key: Digest.sha256Hex(identity, length: 32, prefix: "trip:"))
    }
}
