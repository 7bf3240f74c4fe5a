import Dispatch
import IngestCore

/// The `calendar` and `reminders` items of one file's components (docs/node-api.md).
struct CalendarItems: Sendable {
    /// The collection's name: `calendar` of events, `list` of to-dos.
    let collection: String
    let limits: RecurrenceLimits
    /// Seconds the window reaches past now.
    let lookAhead: Int64

    /// Items, plus the moment (seconds since 1970) from which the file must be read again because
    /// an occurrence it holds then enters the window. Events are made a chunk at a time as they
    /// are asked for, from a plan of small values (which component, which occurrence).
    func make(_ components: [CalendarComponent]) -> (items: TrackedFiles.FileItems, refreshAt: Int64?, retained: [ItemKey]) {
        var reminders: [Item] = []
        var retained: [ItemKey] = []
        var plan = EventPlan(components: components, items: self)
        var firstOutside: Int64?
        func outside(_ instant: Int64) { firstOutside = min(firstOutside ?? .max, instant) }

        // RECURRENCE-ID overrides replace the occurrence they name, matched by instant.
        var overrides: [String: [Int64: Int]] = [:]
        for (index, component) in components.enumerated() where component.kind == .event {
            if let id = component.recurrenceID { overrides[component.uid, default: [:]][id.instant] = index }
        }
        var replaced = Set<OverrideID>()
        for (index, component) in components.enumerated() {
            switch component.kind {
            case .todo:
                reminders.append(reminder(component))
            case .event where component.recurrenceID != nil:
                continue                                         // placed with (or after) its series below
            case .event:
                guard let series = component.series else {
                    guard let start = component.start, component.end != nil else { continue }
                    if start.instant <= limits.windowEnd { plan.add(fields: index, zone: start) } else { outside(start.instant) }
                    continue
                }
                if let next = series.nextAfterWindow { outside(next) }
                retained += series.beyondCap.map { ItemKey(endpoint: .calendar, key: $0.occurrenceKey(uid: component.uid)) }
                for i in 0..<series.count {
                    let occurrence = series[i]
                    if let override = overrides[component.uid]?[occurrence.start.instant], let start = components[override].start, components[override].end != nil {
                        replaced.insert(OverrideID(uid: component.uid, instant: occurrence.start.instant))
                        plan.add(fields: override, zone: start, occurrence: (index, i))
                    } else {
                        plan.add(fields: index, zone: occurrence.start, occurrence: (index, i))
                    }
                }
            }
        }
        // Overrides of occurrences the series did not give (beyond the cap or window, or no master
        // in this file) stand on their own, by their own start.
        for (index, component) in components.enumerated() where component.kind == .event {
            guard let id = component.recurrenceID, let start = component.start, component.end != nil,
                  !replaced.contains(OverrideID(uid: component.uid, instant: id.instant)) else { continue }
            if start.instant <= limits.windowEnd { plan.add(fields: index, zone: start) } else { outside(start.instant) }
        }
        let (events, todos) = (plan, reminders)
        let items = TrackedFiles.FileItems(count: todos.count + events.count) { range in
            let r = todos.count
            return Array(todos[min(range.lowerBound, r)..<min(range.upperBound, r)])
                + events.items(max(range.lowerBound, r) - r..<max(range.upperBound, r) - r)
        }
        return (items, firstOutside.map { $0 - lookAhead }, retained)
    }

    private struct OverrideID: Hashable {
        var uid: String
        var instant: Int64
    }

    /// Every field of an event's item but `start` and `end`, in key order and none `null` (a
    /// template's shared fields); `start` tells how its times are written.
    fileprivate func sharedFields(_ c: CalendarComponent, start: CalendarTime, recurring: Bool) -> [(key: String, value: JSONValue)] {
        let fields: [(key: String, value: JSONValue)] = [
            ("all_day", .bool(start.isDate)),
            ("attendees", .array(c.attendees.map { person($0, withRole: true) })),
            ("calendar", .string(collection)),
            ("location", JSONValue(c.location)),
            ("organizer", c.organizer.map { person($0, withRole: false) } ?? .null),
            ("recurring", .bool(recurring)),
            ("status", JSONValue(c.status)),
            // A wall time with no zone at all says so (docs/node-api.md, Conventions).
            ("time_floating", start.isFloating ? .bool(true) : .null),
            ("title", .string(c.title ?? "")),
            ("tzid", JSONValue(start.tzid)),
            ("uid", .string(c.uid)),
        ]
        return fields.filter { $0.value != .null }
    }

    private func reminder(_ c: CalendarComponent) -> Item {
        Item(endpoint: .reminders, key: c.uid, fields: [
            "title": .string(c.title ?? ""),
            "due": JSONValue(c.due?.rfc3339),
            "completed_at": JSONValue(c.completed?.rfc3339),
            "status": JSONValue(c.status),
            "priority": JSONValue(c.priority),
            "list": .string(collection),
        ])
    }

    /// `{name?, email}` for the organizer, `{name?, email, role?, partstat?}` for an attendee.
    private func person(_ p: CalendarComponent.Person, withRole: Bool) -> JSONValue {
        var fields: [String: JSONValue] = ["email": .string(p.email)]
        if let name = p.name { fields["name"] = .string(name) }
        if withRole, let role = p.role { fields["role"] = .string(role) }
        if withRole, let partstat = p.partstat { fields["partstat"] = .string(partstat) }
        return .object(fields)
    }
}

/// The `calendar` items of a file as a plan: per item, the component whose fields it has (an
/// override's, or the event's own) and the series occurrence it is, if any (its key, and its times
/// unless overridden). Items are made from it a range at a time; the occurrences of one component
/// share an ``ItemTemplate``, so each encodes only its start, end, key and version.
private struct EventPlan: Sendable {
    private struct Planned: Sendable {
        var fields: Int32
        var series: Int32
        var occurrence: Int32
    }

    let components: [CalendarComponent]
    let items: CalendarItems
    private var planned: [Planned] = []
    /// Per component with items, the start whose zone its items' `all_day`, `time_floating` and
    /// `tzid` tell: that of its first item.
    private var zones: [Int: CalendarTime] = [:]

    init(components: [CalendarComponent], items: CalendarItems) {
        self.components = components; self.items = items
        planned.reserveCapacity(components.reduce(0) { $0 + ($1.series?.count ?? 1) })     // at most one per occurrence, not doubled as it grows
    }

    var count: Int { planned.count }

    mutating func add(fields: Int, zone: CalendarTime, occurrence: (series: Int, index: Int)? = nil) {
        if zones[fields] == nil { zones[fields] = zone }
        planned.append(Planned(fields: Int32(fields), series: Int32(occurrence?.series ?? -1), occurrence: Int32(occurrence?.index ?? 0)))
    }

    /// The items of `range`, half on each of two cores when there are enough (the next chunk's
    /// items are made while the last is committed, so the commit's core is busy only part of the time).
    func items(_ range: Range<Int>) -> [Item] {
        guard range.count >= 256 else { return made(range) }
        let middle = range.lowerBound + range.count / 2
        let halves = Locked<[[Item]]>([[], []])
        DispatchQueue.concurrentPerform(iterations: 2) { i in
            let part = made(i == 0 ? range.lowerBound..<middle : middle..<range.upperBound)
            halves.withLock { $0[i] = part }
        }
        return halves.withLock { $0[0] + $0[1] }
    }

    private func made(_ range: Range<Int>) -> [Item] {
        var templates: [Int32: ItemTemplate] = [:]
        return planned[range].map { p in
            let fields = Int(p.fields)
            let template = templates[p.fields] ?? {
                let recurring = components[fields].series != nil || components[fields].recurrenceID != nil
                let made = ItemTemplate(endpoint: .calendar, sortedShared: items.sharedFields(components[fields], start: zones[fields]!, recurring: recurring),
                                        varying: ["end", "start"])
                templates[p.fields] = made
                return made
            }()
            let start: CalendarTime, end: CalendarTime, key: String
            if p.series >= 0 {
                let series = Int(p.series), occurrence = Int(p.occurrence)
                let times = components[series].series![occurrence]
                (start, end) = series == fields ? (times.start, times.end) : (components[fields].start!, components[fields].end!)
                key = times.start.occurrenceKey(uid: components[series].uid)
            } else {
                (start, end) = (components[fields].start!, components[fields].end!)
                key = components[fields].recurrenceID.map { $0.occurrenceKey(uid: components[fields].uid) } ?? components[fields].uid
            }
            return template.item(key: key) { index, out in (index == 0 ? end : start).appendRFC3339(to: &out) }
        }
    }
}
