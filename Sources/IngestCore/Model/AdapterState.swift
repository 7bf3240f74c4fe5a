import FoundationEssentials

/// Whose records a ``RecordKeeping`` adapter keeps beside its anchor (see ``StateRecord``).
public enum RecordScope: Sendable, Equatable {
    /// Its own, per instance (a receiver's fixes).
    case instance
    /// One set shared by every instance of the type (measurements that two exports may both hold).
    case type
}

/// A record an adapter keeps in the state store beside its anchor, written in the same
/// transaction as its items and anchor update.
///
/// Records are in named groups (a day, a journal); within a group a key is stored once, and a
/// record written again with another value replaces it. A record that is new or changed counts
/// toward its group's `changes`, so an adapter that derives items from a group finds the groups
/// to derive again, and settles each with what it derived (``SettledGroup``).
public struct StateRecord: Sendable, Hashable {
    public var group: String
    /// Which run of records this one belongs to: the store keeps a shelf's records together, so
    /// an input that lists one kind after another in order is written after one another instead
    /// of into every group's pages once per kind. Which shelves there are is the adapter's.
    public var shelf: UInt8
    public var key: [UInt8]
    public var value: [UInt8]

    public init(group: String, shelf: UInt8 = 0, key: [UInt8], value: [UInt8]) {
        self.group = group; self.shelf = shelf; self.key = key; self.value = value
    }
}

/// A group's records, what the adapter settled it with last (its own encoding; nil when never,
/// or after `resync`), and its change counter as read, to settle with.
public struct RecordGroup: Sendable {
    public var records: [StateRecord]
    public var settled: [UInt8]?
    public var changes: Int64
    public init(records: [StateRecord] = [], settled: [UInt8]? = nil, changes: Int64 = 0) {
        self.records = records; self.settled = settled; self.changes = changes
    }
}

/// A group derived again: what the adapter keeps of it, and the change counter that was read
/// (changes that came meanwhile leave the group changed).
public struct SettledGroup: Sendable {
    public var state: [UInt8]
    public var changes: Int64
    public init(state: [UInt8], changes: Int64) { self.state = state; self.changes = changes }
}

/// How a record written under a key that is stored already (or written before in the same
/// commit) combines with the value there: `written` and the value it meets in, the value to
/// keep out. For records that collect many things under one key (a day's samples of one
/// kind); without one, the written value replaces the stored one.
public typealias RecordMerge = @Sendable (_ written: StateRecord, _ stored: [UInt8]) -> [UInt8]

/// What a ``RecordKeeping`` adapter's commit does to its records, in the transaction of its
/// items and anchor update.
public struct RecordChanges: Sendable {
    /// Records to keep: new ones are added, known keys take the new value.
    public var records: [StateRecord]
    /// How records written again combine with the stored ones (nil: they replace them).
    public var merge: RecordMerge?
    /// Records to drop, by group and key.
    public var cutoffs: [RecordCutoff]
    /// Groups derived again by this commit.
    public var settled: [String: SettledGroup]

    public init(records: [StateRecord] = [], merge: RecordMerge? = nil, cutoffs: [RecordCutoff] = [], settled: [String: SettledGroup] = [:]) {
        self.records = records; self.merge = merge; self.cutoffs = cutoffs; self.settled = settled
    }

    public var isEmpty: Bool { records.isEmpty && cutoffs.isEmpty && settled.isEmpty }
}

/// Records of one group whose keys sort below `key` (bytewise): dropped by a commit.
public struct RecordCutoff: Sendable {
    public var group: String
    public var key: [UInt8]
    public init(group: String, below key: [UInt8]) { self.group = group; self.key = key }
}

/// An adapter's records as committed so far, read from the store its scan writes to.
public struct AdapterRecords: Sendable {
    private let store: StateStore
    private let space: String?

    /// `space` nil: the adapter declared no records, and asking for them is a mistake in it.
    public init(store: StateStore, space: String?) { self.store = store; self.space = space }

    /// Groups with changes their adapter has not settled, in name order.
    public func changedGroups() throws -> [String] {
        try store.changedGroups(space: checkedSpace())
    }

    /// One group, with every shelf's records.
    public func group(_ name: String) throws -> RecordGroup {
        try store.group(name, space: checkedSpace())
    }

    /// What one group was last settled with (nil: never), without its records.
    public func settled(in group: String) throws -> [UInt8]? {
        try store.settled(in: group, space: checkedSpace())
    }

    /// The records of one group's `shelf` from `key` on, in key order.
    public func records(in group: String, shelf: UInt8 = 0, from key: [UInt8] = []) throws -> [StateRecord] {
        try store.records(in: group, shelf: shelf, from: key, space: checkedSpace())
    }

    /// The groups that hold records on `shelf`, in name order: an adapter finds records of an
    /// older layout of its own so.
    public func groups(onShelf shelf: UInt8) throws -> [String] {
        try store.groups(onShelf: shelf, space: checkedSpace())
    }

    private func checkedSpace() throws -> String {
        guard let space else { throw RecordScopeError() }
        return space
    }
}

/// An adapter read or wrote records without adopting ``RecordKeeping``.
public struct RecordScopeError: Error, CustomStringConvertible {
    public var description: String { "this adapter keeps no records (it is not RecordKeeping) but uses them" }
}

extension StateRecord {
    /// A key whose bytes sort as `value` does (IEEE 754 with the sign flipped into order), for
    /// records read by range of a time or a number.
    public static func orderedKey(_ value: Double) -> [UInt8] {
        let bits = value.bitPattern
        let ordered = bits & (1 << 63) != 0 ? ~bits : bits | (1 << 63)
        return withUnsafeBytes(of: ordered.bigEndian, Array.init)
    }

    /// The number an ``orderedKey(_:)`` was made from; nil for another key.
    public static func number(fromOrderedKey key: [UInt8]) -> Double? {
        guard key.count == 8 else { return nil }
        let ordered = key.reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        return Double(bitPattern: ordered & (1 << 63) != 0 ? ordered & ~(1 << 63) : ~ordered)
    }
}
