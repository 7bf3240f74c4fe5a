extension HealthSample {
    /// A night given as time per stage (Health Auto Export's aggregated sleep, a spreadsheet's
    /// hours of sleep) as samples the roll-up can sum.
    ///
    /// The order of the stages inside the night is not known, so they are laid end to end from
    /// `start` (core, deep, REM, unspecified asleep, awake): the roll-up needs only each night's
    /// total asleep seconds and the stage sums, and the day of waking, which the last stage's end
    /// gives as long as the night is shorter than a day. In bed is the envelope of the night, not a
    /// stage, so it starts at `inBedStart` (else `start`) beside the others.
    ///
    /// - Parameters:
    ///   - seconds: Seconds per stage; zero or missing stages make no sample.
    ///   - totalGiven: Whether the export also gave a total. Health Auto Export's newer exports
    ///     do, and their `asleep` is then only the unspecified part; older ones do not, and their
    ///     `asleep` is the whole night, stages included, so only what the stages leave is unspecified.
    static func aggregatedSleep(_ seconds: [SleepStage: Double], totalGiven: Bool, start: Double, inBedStart: Double? = nil,
                                offset: Int, source: String, daily: Bool = false) -> [HealthSample] {
        let staged = (seconds[.core] ?? 0) + (seconds[.deep] ?? 0) + (seconds[.rem] ?? 0)
        var unspecified = seconds[.asleep] ?? 0
        if !totalGiven { unspecified = max(0, unspecified - staged) }
        var out: [HealthSample] = []
        var at = start
        let chain: [(SleepStage, Double)] = [(.core, seconds[.core] ?? 0), (.deep, seconds[.deep] ?? 0), (.rem, seconds[.rem] ?? 0),
                                             (.asleep, unspecified), (.awake, seconds[.awake] ?? 0)]
        for (stage, length) in chain where length != 0 {
            out.append(HealthSample(kind: .sleep(stage), start: at, end: at + length, offset: offset, value: length, source: source, daily: daily))
            at += length
        }
        if let inBed = seconds[.inBed], inBed != 0 {
            let from = inBedStart ?? start
            out.append(HealthSample(kind: .sleep(.inBed), start: from, end: from + inBed, offset: offset, value: inBed, source: source, daily: daily))
        }
        return out
    }
}
