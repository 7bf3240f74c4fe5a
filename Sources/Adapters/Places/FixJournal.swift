import IngestCore

/// A chunk of fixes (about a minute's) as a live place adapter keeps it beside its anchor: one
/// record of the `journal` group, keyed by the time of its first fix, rewritten in place as it
/// grows. `resync` forgets the anchor but keeps the journal, so it derives every visit again.
struct JournalEntry: Equatable {
    var time: Double
    var data: [UInt8]

    static let group = "journal"

    var record: StateRecord { StateRecord(group: JournalEntry.group, key: StateRecord.orderedKey(time), value: data) }

    /// Entries from time `since` on, in time order.
    static func read(_ records: AdapterRecords, since: Double) throws -> [JournalEntry] {
        try records.records(in: group, from: StateRecord.orderedKey(since)).compactMap { record in
            StateRecord.number(fromOrderedKey: record.key).map { JournalEntry(time: $0, data: record.value) }
        }
    }

    /// Drops the entries that began before `time`.
    static func cutoff(before time: Double) -> RecordCutoff { RecordCutoff(group: group, below: StateRecord.orderedKey(time)) }
}
