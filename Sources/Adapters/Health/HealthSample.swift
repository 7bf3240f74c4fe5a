import FoundationEssentials
import IngestCore

/// One measurement from an export, whatever its format: what it is, when (with the offset it was
/// recorded in, which decides its local day), how much, and which source gave it.
struct HealthSample: Sendable, Equatable {
    enum Kind: Sendable, Hashable {
        case steps, activeEnergy, basalEnergy, heartRate, restingHeartRate, hrv
        case sleep(SleepStage)
    }

    enum SleepStage: String, Sendable, Hashable, CaseIterable { case inBed, asleep, core, deep, rem, awake }

    var kind: Kind
    /// Seconds since 1970 UTC. Equal to `end` for a point (a heart-rate reading, an export's
    /// per-minute aggregate without an end).
    var start: Double
    var end: Double
    /// The UTC offset (seconds) the sample was recorded in.
    var offset: Int
    /// count, kcal, count/min or ms by kind; seconds are `end - start` for sleep. For heart rate
    /// read from an aggregate (min/avg/max per minute or hour), the average.
    var value: Double
    /// The source app or device (`Anna's Apple Watch`, `Fitbit Charge 5`, `Gadgetbridge: Mi Band 6`).
    var source: String
    /// A heart-rate aggregate's minimum and maximum, when the export gives them.
    var low: Double? = nil
    var high: Double? = nil
    /// The value is a whole local day's total (Apple's ActivitySummary, a Fitbit or spreadsheet
    /// daily figure): `start` is that day's local midnight, and it counts only when the day has
    /// no finer samples of its kind.
    var daily = false

    /// The day the sample counts toward: the rest toward their start, sleep toward the day of
    /// waking. A night's first stages end before midnight, so a sleep sample ending after 18:00
    /// local counts toward the next day: one night stays in one day.
    var day: String { HealthTime.dateText(dayNumber) }

    /// ``day`` as days since 1970-01-01: what grouping compares, the text made once per day.
    var dayNumber: Int {
        if case .sleep = kind { HealthTime.localDay(of: end + 6 * 3600, offset: offset) } else { HealthTime.localDay(of: start, offset: offset) }
    }

    /// Why this sample cannot be right (a 10-million-step record, a heart rate of 900), or nil.
    var implausibility: String? {
        guard start.isFinite, end.isFinite, value.isFinite, end >= start else { return "times or value not finite, or the end before the start" }
        guard end - start <= 7 * 86_400 else { return "lasts over a week" }
        guard value >= 0 else { return "negative value \(value)" }
        let hours = max(1, (end - start) / 3600)
        switch kind {
        case .steps where !daily && value > 20_000 * hours: return "\(value) steps in \(Int(hours)) h"
        case .steps where daily && value > 200_000: return "\(value) steps in a day"
        case .activeEnergy where value > 3000 * hours, .basalEnergy where value > 3000 * hours: return "\(value) kcal in \(Int(hours)) h"
        case .heartRate, .restingHeartRate:
            for v in [value, low ?? value, high ?? value] where v < 20 || v > 300 { return "heart rate \(v)/min" }
        case .hrv where value > 1000: return "HRV \(value) ms"
        default: break
        }
        return nil
    }
}

/// A workout as exports give it.
struct HealthWorkout: Sendable, Equatable {
    /// Normalized with ``activity(_:)``: `running`, `cycling`, `traditional_strength_training`.
    var activity: String
    var start: Double
    var end: Double
    var offset: Int
    var energyKcal: Double?
    var distanceM: Double?
    var source: String

    /// `HKWorkoutActivityTypeRunning`, `Outdoor Run`, `Running`, `run` → `running`: the same
    /// workout read from two formats gets one key.
    static func activity(_ name: String) -> String {
        var text = name
        if text.hasPrefix("HKWorkoutActivityType") { text = String(text.dropFirst("HKWorkoutActivityType".count)) }
        // Split CamelCase and separators into lower-case words.
        var words: [String] = []
        var word = ""
        for ch in text {
            if ch.isUppercase, !word.isEmpty, !(word.last?.isUppercase ?? false) { words.append(word); word = "" }
            if ch.isLetter || ch.isNumber { word.append(ch) } else if !word.isEmpty { words.append(word); word = "" }
        }
        if !word.isEmpty { words.append(word) }
        words = words.map { $0.lowercased() }.filter { !["outdoor", "indoor", "open", "water", "pool"].contains($0) || words.count == 1 }
        let joined = words.joined(separator: "_")
        return synonyms[joined] ?? (joined.isEmpty ? "other" : joined)
    }

    private static let synonyms: [String: String] = [
        "run": "running", "jog": "running", "jogging": "running", "treadmill": "running",
        "walk": "walking", "cycle": "cycling", "bike": "cycling", "biking": "cycling", "ride": "cycling",
        "swim": "swimming", "hike": "hiking", "strength_training": "traditional_strength_training",
        "weights": "traditional_strength_training", "weightlifting": "traditional_strength_training",
    ]
}

/// Instants and local days without Foundation's calendars.
enum HealthTime {
    /// The local calendar date (YYYY-MM-DD) of `instant` at UTC `offset` seconds.
    static func localDate(of instant: Double, offset: Int) -> String { dateText(localDay(of: instant, offset: offset)) }

    /// The local day (days since 1970-01-01) of `instant` at `offset`.
    static func localDay(of instant: Double, offset: Int) -> Int {
        let local = Int((instant + Double(offset)).rounded(.down))
        return (local - ((local % 86_400) + 86_400) % 86_400) / 86_400
    }

    /// `YYYY-MM-DD` of a day number.
    static func dateText(_ day: Int) -> String {
        let (y, m, d) = CivilCalendar.date(days: day)
        return CivilCalendar.dateText(year: y, month: m, day: d)
    }

    /// A wall-clock time in `zone` (an export's local time without offset) as (instant, offset).
    /// A time in a DST gap or fold takes the offset in force just before it.
    static func instant(year: Int, month: Int, day: Int, hour: Int = 0, minute: Int = 0, second: Double = 0,
                        in zone: ZoneRules) -> (Double, Int) {
        let wall = Double(CivilCalendar.days(year: year, month: month, day: day) * 86_400 + hour * 3600 + minute * 60) + second
        // The offsets in force a day before and a day after: an offset fits when the instant it
        // gives really has it. Both fit in a fold and neither in a gap; then the earlier one wins.
        func offset(at instant: Double) -> Int { zone.offset(at: instant) }
        let before = offset(at: wall - 86_400), after = offset(at: wall + 86_400)
        let chosen = offset(at: wall - Double(before)) == before || offset(at: wall - Double(after)) != after ? before : after
        return (wall - Double(chosen), chosen)
    }

    /// RFC 3339 at `offset`: `2024-06-02T07:05:00+02:00`, or `…Z` at offset 0; fractions of a
    /// second are kept to the millisecond when there are any.
    static func rfc3339(_ instant: Double, offset: Int) -> String {
        let local = instant + Double(offset)
        let whole = Int(local.rounded(.down))
        let seconds = ((whole % 86_400) + 86_400) % 86_400
        let (y, m, d) = CivilCalendar.date(days: (whole - seconds) / 86_400)
        var text = CivilCalendar.dateText(year: y, month: m, day: d) + "T" + CivilCalendar.pad(seconds / 3600, 2) + ":"
            + CivilCalendar.pad(seconds / 60 % 60, 2) + ":" + CivilCalendar.pad(seconds % 60, 2)
        let millis = Int(((local - Double(whole)) * 1000).rounded())
        if millis > 0 && millis < 1000 { text += "." + CivilCalendar.pad(millis, 3) }
        return text + (offset == 0 ? "Z" : CivilCalendar.offsetText(offset))
    }

}
