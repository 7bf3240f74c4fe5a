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
        let local = Int64((instant + Double(offset)).rounded(.down))
        return HealthSample.civilDate(daysSinceEpoch: Int((local - (local % 86_400 + 86_400) % 86_400) / 86_400))
    }

    /// Howard Hinnant's days-to-civil, so no calendar object is built per sample.
    static func civilDate(daysSinceEpoch days: Int) -> String {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yoe + era * 400 + (month <= 2 ? 1 : 0)
        func pad(_ v: Int, _ w: Int) -> String { let s = String(v); return String(repeating: "0", count: max(0, w - s.count)) + s }
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))"
    }
}
