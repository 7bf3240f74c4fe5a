import FoundationEssentials
import IngestCore

/// One measurement from an export, whatever its format: what it is, when (with the offset it was
/// recorded in, which decides its local day), how much, and which source and device gave it.
struct HealthSample: Sendable, Equatable {
    enum Kind: Sendable, Hashable {
        case steps, activeEnergy, basalEnergy, heartRate, restingHeartRate, hrv
        case sleep(SleepStage)
    }

    enum SleepStage: String, Sendable, Hashable { case inBed, asleep, core, deep, rem, awake }

    var kind: Kind
    /// Seconds since 1970 UTC.
    var start: Double
    var end: Double
    /// The UTC offset (seconds) the sample was recorded in.
    var offset: Int
    /// count, kcal, count/min or ms by kind; seconds are `end - start` for sleep.
    var value: Double
    var source: String
    var device: String?

    /// The identity overlapping exports share (type, start, end, source device, value): the same
    /// sample exported twice has it twice.
    var identity: String {
        "\(kind)|\(start)|\(end)|\(source)|\(device ?? "")|\(value)"
    }

    /// The local calendar date (YYYY-MM-DD) of `instant` in this sample's own offset.
    func localDate(of instant: Double) -> String {
        let local = Int((instant + Double(offset)).rounded(.down))
        let (y, m, d) = CivilCalendar.date(days: (local - ((local % 86_400) + 86_400) % 86_400) / 86_400)
        return CivilCalendar.dateText(year: y, month: m, day: d)
    }
}
