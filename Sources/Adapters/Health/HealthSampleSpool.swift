import Dispatch
import FoundationEssentials
import IngestCore

/// Samples that arrive scattered over the store's groups and shelves (a shuffled export) would,
/// stored one chunk at a time, make a few-sample pack per day and kind in every chunk, each
/// merged into the stored one again and again. From the first such chunk on, the chunks' packs
/// are sorted instead (an external merge sort) and handed on at the end of the file in (shelf,
/// group, key) order, a key's packs one after another, so each day's pack is written about once.
///
/// They are packed into runs of `runBytes` (``PackedRun``); a full run is sorted and written to
/// an unlinked temporary file (``SpillFile``) on a worker thread (``WorkerThreads``) while the next one fills, so the
/// sort costs the reading thread little. At the end the runs and the last one, still in memory,
/// are merged. Memory stays at about two runs whatever the size of the file: past `fanIn` runs,
/// they are first merged `fanIn` at a time into longer ones.
final class HealthSampleSpool {
    /// Per shelf, the latest group this file has reached.
    private var reached = [String?](repeating: nil, count: HealthSampleCodec.shelfCount)
    private let runBytes: Int, fanIn: Int, folder: String
    private var spooling = false
    private var filling = PackedRun(capacity: 0)
    private var file: SpillFile?
    private var spilled: [SpilledRun] = []
    private var fileEnd: Int64 = 0
    /// Held while a run is written: one is written while the next fills.
    private let writing = DispatchSemaphore(value: 1)
    private let writeFailure = Locked<FileReadError?>(nil)
    /// The window each run is read through in a merge.
    private static let window = 128 << 10

    init(runBytes: Int = 4 << 20, fanIn: Int = 32, folder: String = TemporaryFile.folder) {
        precondition(fanIn >= 2, "a merge takes two runs or more")
        self.runBytes = runBytes; self.fanIn = fanIn; self.folder = folder
    }

    /// Spools `records` when they are scattered, or once an earlier chunk was (a key read twice
    /// must keep its later value); false when they are to be stored as they are.
    func take(_ records: [StateRecord]) throws(FileReadError) -> Bool {
        if !spooling {
            guard goingBack(records) * 4 > records.count else { return false }
            spooling = true
            filling = PackedRun(capacity: runBytes)
        }
        for record in records {
            // Spilled before the record would overflow the run's buffer: growing copies it into one twice as large.
            if !filling.isEmpty, filling.bytes.count + PackedRecord.size(record) > runBytes { try spill() }
            filling.append(record)
        }
        return true
    }

    /// What was spooled, merged in (shelf, group, key) order, a key spooled twice in the order
    /// it was read; nil when nothing was. Takes nothing more after.
    func sorted() throws(FileReadError) -> SortedRecords? {
        guard spooling else { return nil }
        writing.wait()                  // the last run is written
        defer { writing.signal() }
        try writeFailure.withLock { (failure) throws(FileReadError) in if let failure { throw failure } }
        while spilled.count >= fanIn { try mergeLevel() }
        let last = filling
        filling = PackedRun(capacity: 0)
        var cursors = spilled.map { RunCursor(file!, $0, window: HealthSampleSpool.window) }
        spilled = []
        spooling = false
        if !last.isEmpty { cursors.append(RunCursor(last)) }
        return SortedRecords(merge: try RunMerge(cursors))
    }

    /// The spooled records in order, a chunk at a time.
    struct SortedRecords {
        fileprivate var merge: RunMerge

        /// The next `size` records at most, fewer once their values reach `bytes`, ending where
        /// a key does so that its packs are coalesced into one write; none at the end.
        mutating func next(_ size: Int, bytes: Int) throws(FileReadError) -> [StateRecord] {
            var chunk: [StateRecord] = []
            var held = 0
            while chunk.count < size, let top = merge.top {
                let record = top.withRecord(PackedRecord.stateRecord)
                if held >= bytes, let last = chunk.last, (last.shelf, last.group, last.key) != (record.shelf, record.group, record.key) { break }
                chunk.append(record)
                held += record.value.count
                try merge.pop()
            }
            return chunk
        }
    }

    /// Hands the full run to a worker thread to be sorted and written, once the one before is written.
    private func spill() throws(FileReadError) {
        if file == nil { file = try SpillFile(in: folder) }
        writing.wait()
        if let failure = writeFailure.withLock({ $0 }) { writing.signal(); throw failure }
        let run = filling, file = file!, at = fileEnd
        filling = PackedRun(capacity: runBytes)
        spilled.append(SpilledRun(offset: at, length: Int64(run.bytes.count)))
        fileEnd += Int64(run.bytes.count)
        let done = writing, failure = writeFailure
        WorkerThreads.start("health.spill") {
            defer { done.signal() }
            do throws(FileReadError) { try run.spill(to: file, at: at) } catch { failure.withLock { $0 = $0 ?? error } }
        }
    }

    /// Merges the spilled runs `fanIn` at a time, in the order they were read, into runs at the
    /// end of the file.
    private func mergeLevel() throws(FileReadError) {
        var level: [SpilledRun] = []
        for first in stride(from: 0, to: spilled.count, by: fanIn) {
            let runs = spilled[first..<min(first + fanIn, spilled.count)]
            guard runs.count > 1 else { level.append(runs.first!); continue }
            var merge = try RunMerge(runs.map { RunCursor(file!, $0, window: HealthSampleSpool.window) })
            var writer = SpillWriter(file!, at: fileEnd)
            while let top = merge.top {
                top.withRecord { p, f in writer.append(UnsafeRawBufferPointer(rebasing: p[f.start..<f.end])) }
                try merge.pop()
            }
            try writer.finish()
            let length = runs.reduce(0) { $0 + $1.length }
            level.append(SpilledRun(offset: fileEnd, length: length))
            fileEnd += length
        }
        spilled = level
    }

    /// How many of `records` go back to an earlier group of their shelf than this file has
    /// reached: pages written before, to be rewritten. A file read in order (by kind then time,
    /// or by time across kinds) goes back rarely (a change of time zone); a shuffled one for
    /// about every other record.
    private func goingBack(_ records: [StateRecord]) -> Int {
        var back = 0
        var previous: (shelf: UInt8, group: String, back: Bool)?
        for r in records {
            if let p = previous, p.shelf == r.shelf, p.group == r.group { back += p.back ? 1 : 0; continue }
            let shelf = Int(r.shelf)
            let isBack = reached[shelf].map { r.group < $0 } ?? false
            if !isBack { reached[shelf] = r.group }
            back += isBack ? 1 : 0
            previous = (r.shelf, r.group, isBack)
        }
        return back
    }
}
