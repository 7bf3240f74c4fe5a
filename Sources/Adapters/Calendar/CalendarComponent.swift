/// One VEVENT or VTODO of a file, read out of libical into plain values (no C type past
/// `ICalDocument.swift`), recurrence already expanded within the window.
struct CalendarComponent: Sendable {
    enum Kind: Sendable { case event, todo }

    /// ORGANIZER or ATTENDEE: the address without `mailto:`, CN, and ROLE and PARTSTAT in lower case.
    struct Person: Sendable, Hashable {
        var name: String?
        var email: String
        var role: String?
        var partstat: String?
    }

    struct Occurrence: Sendable, Hashable {
        var start: CalendarTime
        var end: CalendarTime
    }

    /// The occurrences of an event with RRULE or RDATE, EXDATEs removed, none after the window's
    /// end: at most the cap, the ones nearest the window's end (DESIGN.md), so a long-running
    /// series keeps its recent and coming occurrences.
    struct Series: Sendable {
        /// The occurrences in 40 bytes each, their zones by number in `zones`: a large file holds
        /// every occurrence of every series until its items are made.
        private var packed: [PackedOccurrence] = []
        private var zones: [CalendarTime.Zone] = []
        /// Starts of the older occurrences the cap left out: still the file's, not deleted.
        var beyondCap: [CalendarTime] = []
        /// Start of the first occurrence after the window: when the window gets there the file
        /// must be read again.
        var nextAfterWindow: Int64?

        /// nil when the occurrences are written in more than 256 zones.
        init?(occurrences: some Collection<Occurrence>, beyondCap: [CalendarTime] = [], nextAfterWindow: Int64? = nil) {
            packed.reserveCapacity(occurrences.count)
            for occurrence in occurrences {
                guard zones.count < 255 || zones.contains(occurrence.start.zone) && zones.contains(occurrence.end.zone) else { return nil }
                let (start, startOffset) = occurrence.start.packed(zone: zoneNumber(occurrence.start.zone))
                let (end, endOffset) = occurrence.end.packed(zone: zoneNumber(occurrence.end.zone))
                packed.append(PackedOccurrence(start: start, end: end, startOffset: startOffset, endOffset: endOffset))
            }
            self.beyondCap = beyondCap; self.nextAfterWindow = nextAfterWindow
        }

        var count: Int { packed.count }

        subscript(i: Int) -> Occurrence {
            let p = packed[i]
            return Occurrence(start: CalendarTime(p.start, offset: p.startOffset, zone: zones[p.start.zone]),
                              end: CalendarTime(p.end, offset: p.endOffset, zone: zones[p.end.zone]))
        }

        private mutating func zoneNumber(_ zone: CalendarTime.Zone) -> UInt8 {
            if let i = zones.firstIndex(of: zone) { return UInt8(i) }
            zones.append(zone)
            return UInt8(zones.count - 1)
        }

        private struct PackedOccurrence: Sendable {
            var start: CalendarTime.Packed
            var end: CalendarTime.Packed
            var startOffset: Int32
            var endOffset: Int32
        }
    }

    var kind: Kind
    var uid: String
    /// Line of the component's `BEGIN:` in the file, for warnings.
    var line: Int?
    var title: String?
    var location: String?
    /// STATUS in lower case: `confirmed`, `tentative`, `cancelled`, `needs-action`, `completed`, `in-process`.
    var status: String?
    var start: CalendarTime?
    /// DTEND, or DTSTART + DURATION; for an event without either, its start (a day later for a date).
    var end: CalendarTime?
    var due: CalendarTime?
    var completed: CalendarTime?
    /// 1 (highest) to 9; 0 ("undefined") is nil.
    var priority: Int?
    var recurrenceID: CalendarTime?
    var organizer: Person?
    var attendees: [Person] = []
    var series: Series?
}

/// How far occurrences are expanded.
struct RecurrenceLimits: Sendable {
    /// The window's end, seconds since 1970 UTC: now plus the look-ahead.
    var windowEnd: Int64
    /// Occurrences per series: the ones nearest the window's end.
    var maxPerSeries: Int
    /// RRULE instances looked at per rule at most, so an endless rule by the second cannot hang a scan.
    var maxIterations = 250_000
}
