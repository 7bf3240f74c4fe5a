import Foundation

/// Nine scripted days of one person as exports hold them, to import whole or split: a phone's
/// Records.json points (home overnight across midnight, walks and drives to work and lunch, a
/// night that goes quiet, a 10-hour dead battery at home, two days without a fix), a tablet left
/// at home on two days, Semantic Location History visits and activities, and OwnTracks region
/// transitions (a night at home from enter to leave, one without a position).
struct HistoryExportsScript {
    struct Point { var time: Double, lat: Double, lon: Double, device: Int64 }
    struct Stated { var start: Double, end: Double, lat: Double, lon: Double, activity: String? }
    struct Transition { var time: Double, enter: Bool, lat: Double?, lon: Double? }

    static let day0 = 1_717_200_000.0      // 2024-06-01T00:00:00Z
    static let home = (47.3769, 8.5417)
    var points: [Point] = []
    var stated: [Stated] = []
    var transitions: [Transition] = []

    init(seed: UInt64) {
        var rng = SplitMix64(seed)
        func place(_ east: Double, _ north: Double = 0) -> (Double, Double) {
            (HistoryExportsScript.home.0 + north / 111_320, HistoryExportsScript.home.1 + east / (111_320 * cos(HistoryExportsScript.home.0 * .pi / 180)))
        }
        func stay(_ from: Double, _ to: Double, at p: (Double, Double), every step: Double, device: Int64 = 1) {
            var t = from
            while t < to {
                points.append(Point(time: t.rounded(), lat: p.0 + rng.noise(4) / 111_320, lon: p.1 + rng.noise(4) / 75_000, device: device))
                t += step + rng.noise(3).magnitude
            }
        }
        func move(_ from: Double, _ to: Double, _ a: (Double, Double), _ b: (Double, Double)) {
            var t = from
            while t < to {
                let f = (t - from) / (to - from)
                points.append(Point(time: t.rounded(), lat: a.0 + (b.0 - a.0) * f, lon: a.1 + (b.1 - a.1) * f, device: 1))
                t += 30
            }
        }
        let home = place(0), work = place(6000, 800), lunch = place(6600, 1500)
        let jitter = { (r: inout SplitMix64) in r.noise(600) }
        for n in 0..<9 where n != 6 && n != 7 {       // days 6 and 7: the phone was off
            let d = HistoryExportsScript.day0 + Double(n) * 86_400
            let leave = d + 7.5 * 3600 + jitter(&rng), back = d + 18 * 3600 + jitter(&rng)
            stay(n == 0 ? d : d - 0.5 * 3600, leave - 1800, at: home, every: n == 2 ? 1200 : 60)     // day 2: a quiet phone
            if n == 3 { points.removeAll { $0.time > d + 0.5 * 3600 && $0.time < d + 5 * 3600 } }       // a dead battery at home
            move(leave - 1800, leave, home, work)
            stay(leave, d + 12 * 3600, at: work, every: 90)
            move(d + 12 * 3600, d + 12.25 * 3600, work, lunch)
            stay(d + 12.25 * 3600, d + 13 * 3600, at: lunch, every: 60)
            move(d + 13 * 3600, d + 13.25 * 3600, lunch, work)
            stay(d + 13.25 * 3600, back - 1800, at: work, every: 90)
            move(back - 1800, back, work, home)
            stay(back, d + 23.5 * 3600, at: home, every: 300)
            if n == 1 || n == 4 {
                stated.append(Stated(start: leave + 60, end: d + 12 * 3600 - 60, lat: work.0, lon: work.1, activity: nil))
                stated.append(Stated(start: leave - 1800, end: leave, lat: 0, lon: 0, activity: "IN_PASSENGER_VEHICLE"))
            }
            if n == 2 || n == 3 { stay(d + 9 * 3600, d + 17 * 3600, at: home, every: 300, device: 2) }   // the tablet at home
        }
        let evening5 = HistoryExportsScript.day0 + 5 * 86_400 + 18 * 3600
        transitions = [Transition(time: evening5 + 300, enter: true, lat: home.0, lon: home.1),
                       Transition(time: evening5 + 4.8 * 3600, enter: false, lat: nil, lon: nil),
                       Transition(time: HistoryExportsScript.day0 + 8 * 86_400 + 19 * 3600, enter: true, lat: home.0, lon: home.1),
                       Transition(time: HistoryExportsScript.day0 + 8 * 86_400 + 22 * 3600, enter: false, lat: home.0, lon: home.1)]
    }

    /// The script split into `parts` exports: each point, stated visit and transition in a
    /// random one, or (`byTime`) the days cut at random times, as monthly exports are.
    func split(into parts: Int, byTime: Bool, _ rng: inout SplitMix64) -> [HistoryExportsScript] {
        var out = [HistoryExportsScript](repeating: HistoryExportsScript(), count: parts)
        let cuts = (1..<parts).map { _ in HistoryExportsScript.day0 + rng.uniform() * 9 * 86_400 }.sorted()
        func part(_ time: Double) -> Int { byTime ? cuts.filter { $0 <= time }.count : rng.below(parts) }
        for p in points { out[part(p.time)].points.append(p) }
        for s in stated { out[part(s.start)].stated.append(s) }
        for t in transitions { out[part(t.time)].transitions.append(t) }
        return out
    }

    private init() {}

    /// Writes the exports that hold anything: `NAME.json` (Records.json), `NAME-semantic.json`,
    /// `NAME.rec`.
    func write(to folder: String, name: String) throws {
        func iso(_ t: Double) -> String { Date(timeIntervalSince1970: t).formatted(.iso8601) }
        if !points.isEmpty {
            let rows = points.map { "{\"latitudeE7\": \(Int(($0.lat * 1e7).rounded())), \"longitudeE7\": \(Int(($0.lon * 1e7).rounded())), \"accuracy\": 12, \"deviceTag\": \($0.device), \"timestamp\": \"\(iso($0.time))\"}" }
            try "{\"locations\": [\n\(rows.joined(separator: ",\n"))\n]}\n".write(toFile: "\(folder)/\(name).json", atomically: true, encoding: .utf8)
        }
        if !stated.isEmpty {
            let objects = stated.map { s in
                let duration = "\"duration\": {\"startTimestamp\": \"\(iso(s.start))\", \"endTimestamp\": \"\(iso(s.end))\"}"
                if let activity = s.activity { return "{\"activitySegment\": {\(duration), \"activityType\": \"\(activity)\"}}" }
                return "{\"placeVisit\": {\"location\": {\"latitudeE7\": \(Int((s.lat * 1e7).rounded())), \"longitudeE7\": \(Int((s.lon * 1e7).rounded()))}, \(duration)}}"
            }
            try "{\"timelineObjects\": [\n\(objects.joined(separator: ",\n"))\n]}\n".write(toFile: "\(folder)/\(name)-semantic.json", atomically: true, encoding: .utf8)
        }
        if !transitions.isEmpty {
            let lines = transitions.map { t in
                let position = t.lat.map { ", \"lat\": \($0), \"lon\": \(t.lon!)" } ?? ""
                return "\(iso(t.time))\t*\t{\"_type\": \"transition\", \"event\": \"\(t.enter ? "enter" : "leave")\", \"tst\": \(Int(t.time)), \"wtst\": 1717000000, \"desc\": \"Home\", \"rid\": \"home1\"\(position)}"
            }
            try (lines.joined(separator: "\n") + "\n").write(toFile: "\(folder)/\(name).rec", atomically: true, encoding: .utf8)
        }
    }
}

/// The project's seeded generator: the same numbers for a seed on every machine, so a failing
/// split reproduces.
extension SplitMix64 {
    init(_ seed: UInt64) { self.init(state: seed) }
    mutating func uniform() -> Double { Double(next() >> 11) / Double(1 << 53) }
    mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }
    /// Roughly normal, standard deviation `sd`: the sum of three uniforms, centred.
    mutating func noise(_ sd: Double) -> Double { (uniform() + uniform() + uniform() - 1.5) * 2 * sd }
}
