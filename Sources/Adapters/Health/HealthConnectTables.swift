import FoundationEssentials
import IngestCore

/// The tables of a Health Connect database this reader relies on, as AOSP's HealthFitness
/// module writes them (`service/java/com/android/server/healthconnect/storage/datatypehelpers`,
/// named in the health README). Interval records carry `start_time`/`end_time` in epoch
/// milliseconds and `start_zone_offset` in seconds; instant records `time` and `zone_offset`;
/// every record `app_info_id`, a row of `application_info_table` whose `package_name` becomes
/// the sample's source. Rows are read in storage order, one at a time, so memory stays flat
/// however large the export.
struct HealthConnectTables {
    let db: SQLiteDatabase
    /// `PRAGMA user_version`.
    let version: Int64
    let zone: ZoneRules
    let out: HealthCollector

    /// A table of plain measurements: one sample per row.
    struct Quantity {
        var table: String
        var kind: HealthSample.Kind
        var column: String
        /// Column unit → sample unit: energy is stored in (small) calories.
        var scale: Double
        var instant: Bool
    }

    static let quantities = [
        Quantity(table: "steps_record_table", kind: .steps, column: "count", scale: 1, instant: false),
        Quantity(table: "active_calories_burned_record_table", kind: .activeEnergy, column: "energy", scale: 0.001, instant: false),
        Quantity(table: "resting_heart_rate_record_table", kind: .restingHeartRate, column: "beats_per_minute", scale: 1, instant: true),
        Quantity(table: "heart_rate_variability_rmssd_record_table", kind: .hrv, column: "heart_rate_variability_millis", scale: 1, instant: true),
    ]

    static let intervalColumns: Set<String> = ["row_id", "start_time", "end_time", "start_zone_offset", "app_info_id"]
    static let instantColumns: Set<String> = ["row_id", "time", "zone_offset", "app_info_id"]

    /// `SleepSessionRecord.StageType`: 1 awake, 2 sleeping, 3 out of bed, 4 light, 5 deep, 6 REM,
    /// 7 awake in bed, 0 unknown. Out of bed is no part of the night.
    static let stages: [Int64: HealthSample.SleepStage] = [0: .inBed, 1: .awake, 2: .asleep, 4: .core, 5: .deep, 6: .rem, 7: .awake]

    func readAll() throws(FileReadError) {
        let columns = try tableColumns()
        guard columns["application_info_table", default: []].isSuperset(of: ["row_id", "package_name"]) else {
            throw FileReadError("an SQLite database without Health Connect's application_info_table (row_id, package_name); not a Health Connect export")
        }
        guard version >= HealthConnectExport.oldestVersion else {
            throw FileReadError("Health Connect schema version \(version) is older than \(HealthConnectExport.oldestVersion), which Health Connect itself no longer reads; not read")
        }
        let apps = try packages()
        func source(_ row: SQLiteRow, _ column: Int32) -> String { apps[row.int(column)] ?? "app \(row.int(column))" }
        func has(_ table: String, _ needed: Set<String>) -> Bool {
            guard let present = columns[table] else { return false }
            if present.isSuperset(of: needed) { return true }
            out.note("\(table) lacks \(needed.subtracting(present).sorted().joined(separator: ", ")) (schema version \(version)); skipped")
            return false
        }
        var workouts = HealthConnectWorkouts()
        if has("exercise_session_record_table", HealthConnectTables.intervalColumns.union(["exercise_type"])) {
            workouts = try readSessions(source)
        }
        for q in HealthConnectTables.quantities where has(q.table, (q.instant ? HealthConnectTables.instantColumns : HealthConnectTables.intervalColumns).union([q.column])) {
            try readQuantity(q, source, workouts: &workouts)
        }
        for (table, part) in [("distance_record_table", HealthConnectWorkouts.Part.distance), ("total_calories_burned_record_table", .total)] {
            let column = part == .distance ? "distance" : "energy"
            guard !workouts.sessions.isEmpty, has(table, HealthConnectTables.intervalColumns.union([column])) else { continue }
            try rows("SELECT row_id, start_time, end_time, \(column), app_info_id FROM \(table)") { (row) throws(FileReadError) in
                workouts.attribute(start: seconds(row.int(1)), end: seconds(row.int(2)), value: row.double(3) * (part == .distance ? 1 : 0.001),
                                   app: row.int(4), to: part)
            }
        }
        for workout in workouts.finished(source: { apps[$0] ?? "app \($0)" }) { try out.add(workout.0, line: workout.1) }
        if has("heart_rate_record_table", HealthConnectTables.intervalColumns),
           has("heart_rate_record_series_table", ["parent_key", "beats_per_minute", "epoch_millis"]) {
            try readHeartRate(source)
        }
        if has("sleep_session_record_table", HealthConnectTables.intervalColumns),
           has("sleep_stages_table", ["parent_key", "stage_start_time", "stage_end_time", "stage_type"]) {
            try readSleep(source)
        }
    }

    // MARK: - Tables

    private func readQuantity(_ q: Quantity, _ source: (SQLiteRow, Int32) -> String, workouts: inout HealthConnectWorkouts) throws(FileReadError) {
        let times = q.instant ? "time, time, zone_offset" : "start_time, end_time, start_zone_offset"
        let toWorkouts = q.kind == .activeEnergy && !workouts.sessions.isEmpty
        try rows("SELECT row_id, \(times), \(q.column), app_info_id FROM \(q.table)") { (row) throws(FileReadError) in
            let start = seconds(row.int(1)), end = seconds(row.int(2))
            let value = row.double(4) * q.scale
            try out.add(HealthSample(kind: q.kind, start: start, end: end, offset: offset(row, 3, at: start), value: value, source: source(row, 5)),
                        line: Int(row.int(0)))
            if toWorkouts { workouts.attribute(start: start, end: end, value: value, app: row.int(5), to: .active) }
        }
    }

    /// Each series sample is one reading; the parent record gives its app and offset.
    private func readHeartRate(_ source: (SQLiteRow, Int32) -> String) throws(FileReadError) {
        let sql = "SELECT s.epoch_millis, s.beats_per_minute, p.start_zone_offset, p.app_info_id, p.row_id FROM heart_rate_record_series_table s "
            + "JOIN heart_rate_record_table p ON p.row_id = s.parent_key"
        try rows(sql) { (row) throws(FileReadError) in
            let t = seconds(row.int(0))
            try out.add(HealthSample(kind: .heartRate, start: t, end: t, offset: offset(row, 2, at: t), value: row.double(1), source: source(row, 3)),
                        line: Int(row.int(4)))
        }
    }

    /// A session's stages as stage samples; a session without stages is one `asleep` span.
    private func readSleep(_ source: (SQLiteRow, Int32) -> String) throws(FileReadError) {
        let sql = "SELECT p.row_id, p.start_time, p.end_time, p.start_zone_offset, p.app_info_id, s.stage_start_time, s.stage_end_time, s.stage_type "
            + "FROM sleep_session_record_table p LEFT JOIN sleep_stages_table s ON s.parent_key = p.row_id ORDER BY p.row_id"
        var open: (id: Int64, start: Double, end: Double, offset: Int, source: String, staged: Bool)?
        func closeSession() throws(FileReadError) {
            guard let o = open, !o.staged else { return }
            try out.add(HealthSample(kind: .sleep(.asleep), start: o.start, end: o.end, offset: o.offset, value: o.end - o.start, source: o.source),
                        line: Int(o.id))
        }
        try rows(sql) { (row) throws(FileReadError) in
            if open?.id != row.int(0) {
                try closeSession()
                let start = seconds(row.int(1))
                open = (row.int(0), start, seconds(row.int(2)), offset(row, 3, at: start), source(row, 4), false)
            }
            guard !row.isNull(5), let o = open else { return }
            open?.staged = true
            guard let stage = HealthConnectTables.stages[row.int(7)] else { return }
            let start = seconds(row.int(5)), end = seconds(row.int(6))
            try out.add(HealthSample(kind: .sleep(stage), start: start, end: end, offset: o.offset, value: end - start, source: o.source), line: Int(o.id))
        }
        try closeSession()
    }

    private func readSessions(_ source: (SQLiteRow, Int32) -> String) throws(FileReadError) -> HealthConnectWorkouts {
        var workouts = HealthConnectWorkouts()
        try rows("SELECT row_id, start_time, end_time, start_zone_offset, exercise_type, app_info_id FROM exercise_session_record_table") { (row) throws(FileReadError) in
            let start = seconds(row.int(1))
            workouts.add(row: Int(row.int(0)), start: start, end: seconds(row.int(2)), offset: offset(row, 3, at: start),
                         type: row.int(4), app: row.int(5))
        }
        workouts.sort()
        return workouts
    }

    // MARK: - Helpers

    private func seconds(_ milliseconds: Int64) -> Double { Double(milliseconds) / 1000 }

    /// The row's zone offset in seconds; an app may leave it out (null), then the configured zone's.
    private func offset(_ row: SQLiteRow, _ column: Int32, at instant: Double) -> Int {
        row.isNull(column) ? zone.offset(at: instant) : Int(row.int(column))
    }

    private func tableColumns() throws(FileReadError) -> [String: Set<String>] {
        var names: [String] = []
        try rows("SELECT name FROM sqlite_master WHERE type = 'table'") { (row) throws(FileReadError) in if let n = row.text(0) { names.append(n) } }
        var columns: [String: Set<String>] = [:]
        for name in names where name.hasSuffix("_table") {
            try rows("PRAGMA table_info(\(GadgetbridgeDatabase.quoted(name)))") { (row) throws(FileReadError) in
                if let c = row.text(1) { columns[name, default: []].insert(c) }
            }
        }
        return columns
    }

    private func packages() throws(FileReadError) -> [Int64: String] {
        var apps: [Int64: String] = [:]
        try rows("SELECT row_id, package_name FROM application_info_table") { (row) throws(FileReadError) in apps[row.int(0)] = row.text(1) }
        return apps
    }

    /// Runs `sql`, handing each row to `body`; a throw from `body` stops the query and is rethrown.
    private func rows(_ sql: String, _ body: (SQLiteRow) throws(FileReadError) -> Void) throws(FileReadError) {
        var pending: FileReadError?
        do {
            try db.withConnection { (c) throws(SQLiteError) in
                try c.query(sql) { (row) throws(SQLiteError) -> Bool in
                    do throws(FileReadError) { try body(row) } catch { pending = error; return false }
                    return true
                }
            }
        } catch { throw HealthConnectExport.failure(error) }
        if let pending { throw pending }
    }
}
