import FoundationEssentials
import IngestCore

/// What one bucket (a local day) of stored samples sends: its `day` item, the `sleep` sessions
/// that end in it, and its `workout`s, with keys that stay the same whichever export or format
/// the samples came from.
struct HealthItems {
    var rollup: DayRollup

    /// The items of the day `date`, from the samples and workouts that count toward it.
    func items(date: String, _ stored: HealthSampleCodec.Day) -> [Item] {
        let samples = stored.samples
        var items: [Item] = []
        if !samples.isEmpty, case let day = rollup.day(date, samples), day.hasFigures { items.append(dayItem(day)) }
        items += sleepSessions(samples).map(sleepItem)
        items += workoutItems(stored.workouts)
        return items
    }

    // MARK: - day

    private func dayItem(_ day: DayRollup.Day) -> Item {
        var fields: [String: JSONValue] = ["kind": .string("day"), "date": .string(day.date), "tz": .string(day.timeZone)]
        if let steps = day.steps { fields["steps"] = .int(Int64(steps.rounded())) }
        if let energy = day.activeEnergy { fields["active_energy_kcal"] = .double(round1(energy)) }
        if let resting = day.restingHeartRate { fields["resting_heart_rate"] = .double(round1(resting)) }
        if let hr = day.heartRate {
            fields["heart_rate"] = .object(["min": .double(round1(hr.min)), "avg": .double(round1(hr.avg)), "max": .double(round1(hr.max))])
        }
        if let hrv = day.hrv { fields["hrv_ms"] = .double(round1(hrv)) }
        if let sleep = day.sleepSeconds { fields["sleep_s"] = .int(Int64(sleep.rounded())) }
        return Item(endpoint: .health, key: "day:\(day.date)", fields: fields)
    }

    // MARK: - sleep

    struct SleepSession: Equatable {
        var start: Double
        var end: Double
        var offset: Int
        var deep = 0.0, light = 0.0, rem = 0.0, awake = 0.0
        var staged = false
    }

    /// Stage samples less than an hour apart form one session (a night, or a nap); each stage's
    /// seconds are the union of its intervals, so two sources recording one night count once.
    func sleepSessions(_ samples: [HealthSample]) -> [SleepSession] {
        let stages = samples.compactMap { s -> (HealthSample, HealthSample.SleepStage)? in
            if case .sleep(let stage) = s.kind, s.end > s.start { (s, stage) } else { nil }
        }.sorted { $0.0.start < $1.0.start }
        var groups: [[(HealthSample, HealthSample.SleepStage)]] = []
        var groupEnd = -Double.infinity
        for entry in stages {
            if entry.0.start > groupEnd + 3600 || groups.isEmpty { groups.append([]) }
            groups[groups.count - 1].append(entry)
            groupEnd = max(groupEnd, entry.0.end)
        }
        return groups.map { group in
            var session = SleepSession(start: group.map(\.0.start).min()!, end: group.map(\.0.end).max()!, offset: group[0].0.offset)
            func seconds(_ wanted: Set<HealthSample.SleepStage>) -> Double {
                DayRollup.covered(group.filter { wanted.contains($0.1) }.map { ($0.0.start, $0.0.end) })
            }
            session.deep = seconds([.deep]); session.rem = seconds([.rem]); session.awake = seconds([.awake])
            session.light = seconds([.core, .asleep])
            session.staged = session.deep + session.rem + session.light > 0
            return session
        }
    }

    private func sleepItem(_ s: SleepSession) -> Item {
        var fields: [String: JSONValue] = ["kind": .string("sleep"), "start": .string(HealthTime.rfc3339(s.start, offset: s.offset)),
                                           "end": .string(HealthTime.rfc3339(s.end, offset: s.offset))]
        if s.staged {
            fields["stages"] = .object(["deep_s": .int(Int64(s.deep.rounded())), "light_s": .int(Int64(s.light.rounded())),
                                        "rem_s": .int(Int64(s.rem.rounded())), "awake_s": .int(Int64(s.awake.rounded()))])
        }
        return Item(endpoint: .health, key: "sleep:" + HealthTime.rfc3339(s.start, offset: 0), fields: fields)
    }

    // MARK: - workout

    /// One item per activity and start second; the same workout from two exports is merged,
    /// the first (by source priority) giving what it has and the others filling the gaps.
    private func workoutItems(_ workouts: [HealthWorkout]) -> [Item] {
        var byKey: [String: HealthWorkout] = [:]
        for w in workouts.sorted(by: { (rollup.rank($0.source), $0.source) < (rollup.rank($1.source), $1.source) }) {
            let key = "workout:\(w.activity):" + HealthTime.rfc3339(w.start.rounded(.down), offset: 0)
            guard var kept = byKey[key] else { byKey[key] = w; continue }
            kept.energyKcal = kept.energyKcal ?? w.energyKcal
            kept.distanceM = kept.distanceM ?? w.distanceM
            byKey[key] = kept
        }
        return byKey.keys.sorted().map { key in
            let w = byKey[key]!
            var fields: [String: JSONValue] = ["kind": .string("workout"), "activity": .string(w.activity),
                                               "start": .string(HealthTime.rfc3339(w.start, offset: w.offset)),
                                               "end": .string(HealthTime.rfc3339(w.end, offset: w.offset))]
            if let energy = w.energyKcal { fields["energy_kcal"] = .double(round1(energy)) }
            if let distance = w.distanceM { fields["distance_m"] = .int(Int64(distance.rounded())) }
            return Item(endpoint: .health, key: key, fields: fields)
        }
    }

    private func round1(_ v: Double) -> Double { (v * 10).rounded() / 10 }
}

extension DayRollup.Day {
    /// Whether the day has anything to send (a day of basal energy alone has not).
    var hasFigures: Bool {
        steps != nil || activeEnergy != nil || restingHeartRate != nil || heartRate != nil || hrv != nil || sleepSeconds != nil
    }
}
