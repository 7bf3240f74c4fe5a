import IngestCore

/// Which days a scan derives again, and their derivations: only the days a new or changed file
/// touched, with as many days around them as it takes to give exactly the items a derivation of
/// every day would (see the README's "Incremental derivation" for the argument).
///
/// Each day's settled state records where the detector stood after the day (its anchor). A
/// window resumes at the anchor recorded for the day before it, reads on through the changed
/// days, and stops at the first later day where the detector stands where it stood last time
/// over unchanged points; items of the days in between are given, every other day's are as
/// they went out. A store without those records, or derived under other settings, is derived whole.
struct HistoryWindows {
    let places: HistoryPlaces
    let records: AdapterRecords
    let now: Double

    struct Window {
        var derived: HistoryPlaces.Derived
        /// The days (since 1970-01-01) whose items it gives.
        var emit: ClosedRange<Int>
    }

    struct Result {
        var days: [String]
        var windows: [Window]
        var state: HistoryDerivationState
        /// Points stored per tagged device, over every day.
        var devices: [Int64: Int] = [:]
    }

    /// Days a change reaches beyond: a day's device choice looks at the days on either side.
    static let margin = 1

    func derive() throws -> Result {
        let days = try HistoryPlaces.days(records)
        let settings = HistoryDerivationState.settings(places)
        guard let last = HistoryDerivationState(try records.settled(in: HistoryDerivationState.group)),
              last.settings == settings, !days.isEmpty else { return try whole(days, settings: settings) }
        var stated = try HistoryStated.read(records, days: days, places: places)
        let stays = stated.addRegionStays()
        let numbers = days.map { HistoryTime.number(ofDay: $0) }
        var windows: [(range: ClosedRange<Int>, window: Window)] = []
        for var range in try affected(numbers, stated: stated, stays: stays, last: last) {
            while true {
                let window = try window(range, days: days, numbers: numbers, stated: stated)
                if let previous = windows.last, window.emit.lowerBound <= previous.window.emit.upperBound {
                    range = previous.range.lowerBound...max(range.upperBound, previous.range.upperBound)
                    windows.removeLast()
                    continue
                }
                windows.append((range, window))
                break
            }
        }
        var result = Result(days: days, windows: windows.map(\.window), state: HistoryDerivationState(settings: settings, regionStays: stays))
        try countDevices(&result)
        return result
    }

    private func whole(_ days: [String], settings: String) throws -> Result {
        let derived = try places.derive(records, days: days, now: now)
        var result = Result(days: days, windows: [Window(derived: derived, emit: Int.min...Int.max)],
                            state: HistoryDerivationState(settings: settings, regionStays: derived.regionStays))
        for counts in derived.devices.values { result.devices.merge(counts, uniquingKeysWith: +) }
        return result
    }

    /// The days to derive again, as ranges apart by more than two days: days with new records,
    /// as far as their stated visits and activities last; the days of region stays that came or
    /// went; the last day (whether its last visit is over depends on the clock); each with
    /// `margin` days around it.
    private func affected(_ numbers: [Int], stated: HistoryStated, stays: [StatedVisit], last: HistoryDerivationState) throws -> [ClosedRange<Int>] {
        func day(_ time: Double) -> Int { Int((time / 86_400).rounded(.down)) }
        let bounds = numbers.first!...numbers.last!
        let changed = Set(try records.changedGroups().filter { $0.hasPrefix("d:") }.map { HistoryTime.number(ofDay: $0.dropFirst(2)) })
        var spans = changed.map { $0...$0 } + [bounds.upperBound...bounds.upperBound]
        spans += stated.visits.filter { changed.contains(day($0.start)) }.map { day($0.start)...max(day($0.start), day($0.end)) }
        spans += stated.activities.filter { changed.contains(day($0.start)) }.map { day($0.start)...max(day($0.start), day($0.end)) }
        spans += stays.filter { !last.regionStays.contains($0) }.map { day($0.start)...max(day($0.start), day($0.end)) }
        spans += last.regionStays.filter { !stays.contains($0) }.map { day($0.start)...max(day($0.start), day($0.end)) }
        var ranges: [ClosedRange<Int>] = []
        for span in spans.map({ ($0.lowerBound - HistoryWindows.margin)...($0.upperBound + HistoryWindows.margin) }).map({ $0.clamped(to: bounds) })
            .sorted(by: { $0.lowerBound < $1.lowerBound }) {
            if let previous = ranges.last, span.lowerBound <= previous.upperBound + 2 {
                ranges[ranges.count - 1] = previous.lowerBound...max(previous.upperBound, span.upperBound)
            } else {
                ranges.append(span)
            }
        }
        return ranges
    }

    /// The derivation of the days in `range` and as many around them as exactness takes.
    private func window(_ range: ClosedRange<Int>, days: [String], numbers: [Int], stated: HistoryStated) throws -> Window {
        let first = numbers.firstIndex { $0 >= range.lowerBound } ?? numbers.count
        let lastAffected = numbers.lastIndex { $0 <= range.upperBound } ?? -1
        var k = first - 1       // the first day given: the day before the first changed one, or earlier
        while true {
            var plan = HistoryPlaces.Plan(stated: stated, rejoin: .init(after: lastAffected, from: Double(range.upperBound + 1) * 86_400, old: anchor))
            if k > 0 {
                plan.from = try anchor(HistoryRecords.group(day: days[k - 1])) ?? HistoryTime.start(ofDay: days[k])
                // A stated visit across the anchor would merge a visit before it with one after.
                guard stated.isClear(at: plan.from) else { k -= max(1, first - k); continue }
                plan.start = days[..<k].lastIndex(of: HistoryTime.day(plan.from)) ?? k
            } else {
                plan.stated = nil     // from the first day: the whole store
                k = -1
            }
            let derived = try places.derive(records, days: days, plan: plan, now: now)
            // The trip into the first visit that may change starts at the visit before it: it is
            // given only when that visit arrives within the window.
            if k > 0 {
                let changedFrom = (derived.anchors[HistoryRecords.group(day: days[first - 1])] ?? nil) ?? HistoryTime.start(ofDay: days[min(first, days.count - 1)])
                let lower = HistoryTime.start(ofDay: days[k])
                guard derived.visits.contains(where: { $0.arrival >= lower && $0.arrival < changedFrom }) else { k -= max(1, first - k); continue }
            }
            return Window(derived: derived, emit: (k > 0 ? numbers[k] : Int.min)...(derived.rejoined.map { numbers[$0 + 1] - 1 } ?? Int.max))
        }
    }

    /// The anchor the last derivation recorded after a day: nil when no fix came before its end.
    private func anchor(_ group: String) throws -> Double? { HistoryDayState(try records.settled(in: group)).anchor }

    /// Points per device over every day: as read where a window read the day, else as recorded.
    private func countDevices(_ result: inout Result) throws {
        for day in result.days {
            let group = HistoryRecords.group(day: day)
            let counts = try result.windows.lazy.compactMap { $0.derived.devices[group] }.first ?? HistoryDayState(try records.settled(in: group)).devices
            result.devices.merge(counts, uniquingKeysWith: +)
        }
    }
}
