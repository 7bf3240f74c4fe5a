/// Pass 1 of a derivation: points through the shared filter and stay-point detector, the visits
/// it found, and the stated visits and activities they merge with.
struct HistoryDetection {
    let places: HistoryPlaces
    var stated: HistoryStated
    /// No point before this was read: stated visits starting before it are not members.
    let from: Double
    private(set) var detector: VisitDetector
    private var filter: FixFilter
    /// The last state of each visit, in arrival order: one visit is open at a time, so a
    /// visit's close follows its open with no other visit between.
    private var detected: [Visit] = []

    init(places: HistoryPlaces, stated: HistoryStated, from: Double) {
        self.places = places; self.stated = stated; self.from = from
        detector = VisitDetector(settings: places.settings.detector)
        filter = places.filter()
    }

    /// Takes a day's points; returns how many the filter rejected.
    mutating func add(_ points: [Fix], now: Double) -> Int {
        var rejected = 0
        for fix in points {
            if filter.check(fix, now: now) != nil { rejected += 1; continue }
            take(detector.add(fix))
        }
        return rejected
    }

    mutating func closeIfStale(now: Double) { take(detector.closeIfStale(now: now)) }

    private mutating func take(_ events: [VisitDetector.Event]) {
        for event in events {
            switch event {
            case .opened(let v), .closed(let v):
                if detected.last?.key == v.key { detected[detected.count - 1] = v } else { detected.append(v) }
            case .trip: break             // trips are built in pass 2, between the merged visits
            }
        }
    }

    /// The visits found merged with the stated ones from `from` on: up to the detector's anchor
    /// (before which every visit found is over), or all of them once every point was read.
    func merged(complete: Bool) -> [HistoryPlaces.Member] {
        let until = complete ? Double.infinity : detector.anchorTime ?? from
        return places.merge(detected, stated: stated.visits.filter { $0.start >= from && $0.start < until })
    }

    /// Whether the items of the days before `boundary` are final: every visit arriving before
    /// it, and the first arriving after (where the trip from the last one ends), is over before
    /// the detector's anchor, so no later point or stated visit changes them.
    func settles(before boundary: Double) -> Bool {
        guard let anchor = detector.anchorTime else { return false }
        let members = merged(complete: false)
        guard let next = members.firstIndex(where: { $0.arrival >= boundary }) else { return false }
        return members[...next].allSatisfy { $0.end < anchor }
    }
}
