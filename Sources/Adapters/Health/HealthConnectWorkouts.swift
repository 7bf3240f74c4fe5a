import FoundationEssentials

/// Health Connect's exercise sessions with the distance and energy their app recorded during
/// them. A session row holds only its type and times: distance and calories are records of their
/// own (`distance_record_table`, `active_calories_burned_record_table`,
/// `total_calories_burned_record_table`), so each such record of the same app counts toward the
/// sessions it overlaps, in proportion to the overlap. Sessions are few (one a workout) and
/// kept in memory; the records are streamed past them.
struct HealthConnectWorkouts {
    enum Part { case distance, active, total }

    struct Session {
        var row: Int
        var start: Double
        var end: Double
        var offset: Int
        var type: Int64
        var app: Int64
        var distance = 0.0, active = 0.0, total = 0.0
        var hasDistance = false, hasActive = false, hasTotal = false
    }

    private(set) var sessions: [Session] = []

    mutating func add(row: Int, start: Double, end: Double, offset: Int, type: Int64, app: Int64) {
        sessions.append(Session(row: row, start: start, end: end, offset: offset, type: type, app: app))
    }

    /// Sorts by start, for ``attribute``'s search.
    mutating func sort() { sessions.sort { $0.start < $1.start } }

    /// The longest session looked back over for a record (a workout longer than the collector's
    /// week is refused anyway).
    static let longest = 7.0 * 86_400

    /// Adds the share of `start..<end` (a point counts whole) that falls inside each session of `app`.
    mutating func attribute(start: Double, end: Double, value: Double, app: Int64, to part: Part) {
        guard value.isFinite, value > 0 else { return }
        var lo = 0, hi = sessions.count                 // first session starting after the record ends
        while lo < hi { let mid = (lo + hi) / 2; if sessions[mid].start <= end { lo = mid + 1 } else { hi = mid } }
        var i = lo - 1
        while i >= 0, sessions[i].start > start - HealthConnectWorkouts.longest {
            defer { i -= 1 }
            let s = sessions[i]
            guard s.app == app else { continue }
            let share: Double
            if end > start {
                let overlap = min(end, s.end) - max(start, s.start)
                guard overlap > 0 else { continue }
                share = overlap / (end - start)
            } else {
                guard start >= s.start, start < s.end else { continue }
                share = 1
            }
            switch part {
            case .distance: sessions[i].distance += value * share; sessions[i].hasDistance = true
            case .active: sessions[i].active += value * share; sessions[i].hasActive = true
            case .total: sessions[i].total += value * share; sessions[i].hasTotal = true
            }
        }
    }

    /// The workouts with their row numbers. Energy is the active calories, else the total
    /// (which includes the basal rate: the best the app gave).
    func finished(source: (Int64) -> String) -> [(HealthWorkout, Int)] {
        sessions.map { s in
            let energy = s.hasActive ? s.active : s.hasTotal ? s.total : nil
            let workout = HealthWorkout(activity: HealthWorkout.activity(HealthConnectWorkouts.activity(s.type)), start: s.start, end: s.end,
                                        offset: s.offset, energyKcal: energy, distanceM: s.hasDistance ? s.distance : nil, source: source(s.app))
            return (workout, s.row)
        }
    }

    /// `android.health.connect.datatypes.ExerciseSessionType`, the platform's numbering, which the
    /// database stores (the androidx client library numbers them differently and maps on the way in).
    static func activity(_ type: Int64) -> String {
        names[type] ?? "other"
    }

    static let names: [Int64: String] = [
        1: "badminton", 2: "baseball", 3: "basketball", 4: "biking", 5: "biking_stationary", 6: "boot_camp", 7: "boxing",
        8: "calisthenics", 9: "cricket", 10: "dancing", 11: "exercise_class", 12: "fencing", 13: "football_american",
        14: "football_australian", 15: "frisbee_disc", 16: "golf", 17: "guided_breathing", 18: "gymnastics", 19: "handball",
        20: "high_intensity_interval_training", 21: "hiking", 22: "ice_hockey", 23: "ice_skating", 24: "martial_arts",
        25: "paddling", 26: "paragliding", 27: "pilates", 28: "racquetball", 29: "rock_climbing", 30: "roller_hockey",
        31: "rowing", 32: "rugby", 33: "running", 34: "running_treadmill", 35: "sailing", 36: "scuba_diving", 37: "skating",
        38: "skiing", 39: "snowboarding", 40: "snowshoeing", 41: "soccer", 42: "softball", 43: "squash", 44: "stair_climbing",
        45: "strength_training", 46: "stretching", 47: "surfing", 48: "swimming_open_water", 49: "swimming_pool",
        50: "table_tennis", 51: "tennis", 52: "volleyball", 53: "walking", 54: "water_polo", 55: "weightlifting",
        56: "wheelchair", 57: "yoga", 58: "other_workout", 59: "stair_climbing_machine", 60: "elliptical", 61: "rowing_machine",
    ]
}
