import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Rolls samples up into one summary per local calendar day.
///
/// Cumulative quantities (steps, energy) from sources that overlap in time are not added up:
/// like the Health app, sources are taken in priority order and a lower one counts only for the
/// share of its interval no higher source covers. Each sample's day comes from its own offset,
/// so a day across a DST change, or samples from two time zones, land where they were lived.
/// Sleep counts toward the day of waking (``HealthSample/day``). A daily figure (an activity
/// summary, a spreadsheet row) counts only for a day with no finer samples of its kind.
struct DayRollup {
    struct Day: Sendable, Equatable {
        var date: String
        /// The offset most of the day's samples were recorded in, as `+HH:MM`.
        var timeZone: String
        var steps: Double?
        var activeEnergy: Double?
        var restingHeartRate: Double?
        var heartRate: (min: Double, avg: Double, max: Double)?
        var hrv: Double?
        var sleepSeconds: Double?

        static func == (a: Day, b: Day) -> Bool {
            a.date == b.date && a.timeZone == b.timeZone && a.steps == b.steps && a.activeEnergy == b.activeEnergy
                && a.restingHeartRate == b.restingHeartRate && a.heartRate?.min == b.heartRate?.min
                && a.heartRate?.avg == b.heartRate?.avg && a.heartRate?.max == b.heartRate?.max && a.hrv == b.hrv && a.sleepSeconds == b.sleepSeconds
        }
    }

    /// Source names in priority order, first wins; globs allowed (`*Watch*`). Sources that match
    /// none come after, by name.
    var priority: [String]

    func days(_ samples: [HealthSample]) -> [Day] {
        var byDay: [Int: [HealthSample]] = [:]
        for s in samples { byDay[s.dayNumber, default: []].append(s) }
        return byDay.keys.sorted().map { day(HealthTime.dateText($0), byDay[$0]!) }
    }

    /// One day from samples already known to count toward `date` (a stored day's bucket).
    func day(_ date: String, _ samples: [HealthSample]) -> Day {
        var offsets: [Int: Int] = [:]
        for s in samples where !s.daily { offsets[s.offset, default: 0] += 1 }
        if offsets.isEmpty { for s in samples { offsets[s.offset, default: 0] += 1 } }
        let offset = offsets.max { $0.value < $1.value || ($0.value == $1.value && $0.key > $1.key) }?.key ?? 0
        var day = Day(date: date, timeZone: CivilCalendar.offsetText(offset))
        // One pass sorts the samples by what they measure.
        var steps: [HealthSample] = [], energy: [HealthSample] = [], resting: [Double] = [], hrv: [Double] = []
        var asleep: [(Double, Double)] = []
        var rates = 0, rateSum = 0.0, low = Double.infinity, high = -Double.infinity
        for s in samples {
            switch s.kind {
            case .steps: steps.append(s)
            case .activeEnergy: energy.append(s)
            case .restingHeartRate: resting.append(s.value)
            case .hrv: hrv.append(s.value)
            case .heartRate:
                rates += 1; rateSum += s.value
                low = min(low, s.low ?? s.value); high = max(high, s.high ?? s.value)
            case .sleep(let stage) where stage != .inBed && stage != .awake: asleep.append((s.start, s.end))
            case .sleep, .basalEnergy: break
            }
        }
        day.steps = cumulative(steps)
        day.activeEnergy = cumulative(energy)
        day.restingHeartRate = mean(resting)
        if rates > 0 { day.heartRate = (low, rateSum / Double(rates), high) }
        day.hrv = mean(hrv)
        if !asleep.isEmpty { day.sleepSeconds = DayRollup.covered(asleep) }
        return day
    }

    /// The day's total of one cumulative quantity, each source counted only where no source
    /// before it in priority covers the time.
    private func cumulative(_ all: [HealthSample]) -> Double? {
        let samples = all.filter { !$0.daily }
        guard !samples.isEmpty else {
            // Only daily figures: the preferred source's.
            return all.min { (rank($0.source), $0.source) < (rank($1.source), $1.source) }?.value
        }
        // Sources in priority order (each source's rank is matched once, not per comparison). A
        // day has a few: each sample's is found along the list, not hashed.
        var bySource: [(source: String, samples: [HealthSample])] = []
        var last = 0
        for s in samples {
            if last < bySource.count, bySource[last].source == s.source { bySource[last].samples.append(s); continue }
            last = bySource.firstIndex { $0.source == s.source } ?? bySource.count
            if last == bySource.count { bySource.append((s.source, [])) }
            bySource[last].samples.append(s)
        }
        let sources = bySource.map { ($0, rank($0.source)) }.sorted { ($0.1, $0.0.source) < ($1.1, $1.0.source) }.map(\.0.samples)
        var total = 0.0
        var taken: [(Double, Double)] = []           // intervals of sources already counted, merged
        for samples in sources {
            var mine: [(Double, Double)] = []
            for s in samples {
                let length = s.end - s.start
                if length <= 0 {
                    if !DayRollup.covers(taken, s.start) { total += s.value }
                } else {
                    let free = length - DayRollup.overlap(s.start, s.end, taken)
                    total += s.value * max(0, free) / length
                    mine.append((s.start, s.end))
                }
            }
            taken = DayRollup.merge(taken + mine)      // what this source covered is now taken
        }
        return total
    }

    func rank(_ source: String) -> Int {
        priority.firstIndex { fnmatch($0, source, 0) == 0 } ?? priority.count
    }

    static func merge(_ intervals: [(Double, Double)]) -> [(Double, Double)] {
        var out: [(Double, Double)] = []
        for i in intervals.sorted(by: { $0.0 < $1.0 }) {
            if let last = out.last, i.0 <= last.1 { out[out.count - 1].1 = max(last.1, i.1) } else { out.append(i) }
        }
        return out
    }

    /// Seconds of `start..<end` inside `merged` (sorted, disjoint): a binary search to the
    /// first interval that can overlap, so a day of thousands of samples stays linear-ish.
    static func overlap(_ start: Double, _ end: Double, _ merged: [(Double, Double)]) -> Double {
        var i = firstEndingAfter(start, merged), total = 0.0
        while i < merged.count, merged[i].0 < end {
            total += max(0, min(end, merged[i].1) - max(start, merged[i].0)); i += 1
        }
        return total
    }

    static func covers(_ merged: [(Double, Double)], _ instant: Double) -> Bool {
        let i = firstEndingAfter(instant, merged)
        return i < merged.count && merged[i].0 <= instant
    }

    private static func firstEndingAfter(_ instant: Double, _ merged: [(Double, Double)]) -> Int {
        var lo = 0, hi = merged.count
        while lo < hi { let mid = (lo + hi) / 2; if merged[mid].1 <= instant { lo = mid + 1 } else { hi = mid } }
        return lo
    }

    /// Seconds covered by the union of `intervals` (overlapping sleep from two sources counts once).
    static func covered(_ intervals: [(Double, Double)]) -> Double {
        merge(intervals).reduce(0) { $0 + ($1.1 - $1.0) }
    }

    private func mean(_ values: [Double]) -> Double? { values.isEmpty ? nil : values.reduce(0, +) / Double(values.count) }
}
