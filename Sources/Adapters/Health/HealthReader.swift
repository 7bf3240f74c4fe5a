import FoundationEssentials
import IngestCore

/// One export format: Apple Health XML, Health Auto Export JSON or CSV, Fitbit / Google Takeout
/// JSON, Gadgetbridge SQLite, column-mapped CSV.
protocol HealthReader: Sendable {
    /// `Format=` value that forces this reader.
    static var format: String { get }
    /// Whether a file looks like this format, from its name and its first bytes (up to 4 KiB,
    /// after any byte-order mark).
    static func detect(name: String, head: [UInt8]) -> Bool
    /// Reads `input` into `out`. Bad records go to `out.bad(line:_:)` and the read goes on; a
    /// throw means the file as a whole is not this format or cannot be read (what was collected
    /// before it is kept: a file cut off mid-way keeps what came before the cut).
    static func read(_ input: HealthInput, _ settings: HealthSettings, into out: HealthCollector) throws(FileReadError)
    /// Whether a file that only grew can be read from where it ended (CSV rows are appended;
    /// a JSON or XML document is not).
    static var appendable: Bool { get }
}

extension HealthReader {
    static var appendable: Bool { false }
}

/// What a reader reads: a file, or the part of it past `offset` when it only grew. What the
/// reader reads through `stream()` also goes to `digest`, the file's content hash.
struct HealthInput: Sendable {
    /// The file's path (a database is opened by path, read-only).
    var path: String
    /// Where to start: 0, or the size already read when an append-friendly format (CSV) grew.
    var offset: Int64 = 0
    var digest: ContentHasher? = nil

    /// The file from `offset`, in blocks.
    func stream() throws(FileReadError) -> FileByteStream {
        try FileByteStream(path: path, offset: offset, digest: digest)
    }
}

/// The adapter's settings readers use.
struct HealthSettings: Sendable {
    /// For times an export writes without an offset (Health Auto Export CSV, Fitbit, spreadsheets).
    var timeZone: ZoneRules = .system
    /// Column-mapped CSV: field → column header. Fields: `steps`, `active_energy`, `resting_heart_rate`,
    /// `heart_rate`, `heart_rate_min`, `heart_rate_max`, `hrv`, `sleep` (hours), `sleep_minutes`.
    var columns: [String: String] = [:]
    /// Column-mapped CSV: the date (or date-time) column, and its format in strftime-like letters
    /// (`%Y-%m-%d`, `%d.%m.%Y %H:%M`); empty means ISO 8601.
    var dateColumn: String?
    var dateFormat: String?
    /// The source name for formats that do not name one (a spreadsheet): the file's base name.
    func defaultSource(for path: String) -> String { path.lastPathComponent }
}

/// Receives what a reader finds, in file order, and hands it on in chunks so a multi-GB export
/// is never held at once. Implausible samples are counted as bad, with the first bad line kept
/// for the file's one warning.
final class HealthCollector {
    private(set) var samples: [HealthSample] = []
    private(set) var workouts: [HealthWorkout] = []
    /// Rows skipped, and the first one's line (or record) and reason.
    private(set) var badCount = 0
    private(set) var firstBad: String?
    /// Notes about the file as a whole (an unknown metric, a table with no samples).
    private(set) var notes: [String] = []
    let chunkSize: Int
    private let flush: (([HealthSample], [HealthWorkout]) throws(FileReadError) -> Void)?

    /// - Parameter flush: takes each full chunk; without one, everything stays in `samples` and `workouts`.
    /// Samples per chunk unless told otherwise: a few MB.
    static let defaultChunkSize = 20_000

    init(chunkSize: Int = defaultChunkSize, flush: (([HealthSample], [HealthWorkout]) throws(FileReadError) -> Void)? = nil) {
        self.chunkSize = chunkSize; self.flush = flush
    }

    func add(_ sample: HealthSample, line: Int) throws(FileReadError) {
        if let why = sample.implausibility { bad(line: line, why); return }
        samples.append(sample)
        if samples.count >= chunkSize { try flushNow() }
    }

    func add(_ workout: HealthWorkout, line: Int) throws(FileReadError) {
        guard workout.end >= workout.start, workout.end - workout.start <= 7 * 86_400, (workout.energyKcal ?? 0) >= 0,
              (workout.energyKcal ?? 0) < 50_000, (workout.distanceM ?? 0) >= 0, (workout.distanceM ?? 0) < 2_000_000 else {
            bad(line: line, "implausible workout (\(workout.activity), \(workout.end - workout.start) s)"); return
        }
        workouts.append(workout)
        if workouts.count >= chunkSize { try flushNow() }
    }

    /// A record that was skipped; `line` is 1-based (a row number for a database table).
    func bad(line: Int, _ reason: String) {
        badCount += 1
        if firstBad == nil { firstBad = "line \(line): \(reason)" }
    }

    func note(_ text: String) { if !notes.contains(text) { notes.append(text) } }

    /// Samples and workouts handed on so far.
    private(set) var handedOn = 0

    /// Hands on what is held (the adapter calls it once more at the end).
    func flushNow() throws(FileReadError) {
        guard let flush, !samples.isEmpty || !workouts.isEmpty else { return }
        handedOn += samples.count + workouts.count
        try flush(samples, workouts)
        samples.removeAll(keepingCapacity: true); workouts.removeAll(keepingCapacity: true)
    }
}
