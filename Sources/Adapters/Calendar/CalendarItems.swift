import Dispatch
import IngestCore
import Synchronization

/// The `calendar` and `reminders` items of one file's components (docs/node-api.md).
struct CalendarItems {
    /// The collection's name: `calendar` of events, `list` of to-dos.
    let collection: String
    let limits: RecurrenceLimits
    /// Seconds the window reaches past now.
    let lookAhead: Int64

    /// Items, plus the moment (seconds since 1970) from which the file must be read again because
    /// an occurrence it holds then enters the window.
    func make(_ components: [CalendarComponent]) -> (items: [Item], refreshAt: Int64?, retained: [FileRecord.ItemKey]) {
        var items: [Item] = []
        var retained: [FileRecord.ItemKey] = []
        var occurrences: [Occurrence] = []
        // The fields an event's occurrences share, made once per component.
        var shared: [Int: [String: JSONValue]] = [:]
        func event(_ index: Int, start: CalendarTime, end: CalendarTime, key: String, recurring: Bool) {
            if shared[index] == nil { shared[index] = sharedFields(components[index], start: start, recurring: recurring) }
            occurrences.append(Occurrence(component: index, start: start, end: end, key: key))
        }
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
                items.append(reminder(component))
            case .event where component.recurrenceID != nil:
                continue                                         // placed with (or after) its series below
            case .event:
                guard let series = component.series else {
                    guard let start = component.start, let end = component.end else { continue }
                    if start.instant <= limits.windowEnd { event(index, start: start, end: end, key: component.uid, recurring: false) }
                    else { outside(start.instant) }
                    continue
                }
                if let next = series.nextAfterWindow { outside(next) }
                retained += series.beyondCap.map { FileRecord.ItemKey(endpoint: .calendar, key: "\(component.uid)/\($0.recurrenceKey)") }
                for occurrence in series.occurrences {
                    let id = OverrideID(uid: component.uid, instant: occurrence.start.instant)
                    let key = "\(component.uid)/\(occurrence.start.recurrenceKey)"
                    if let override = overrides[component.uid]?[occurrence.start.instant], let start = components[override].start, let end = components[override].end {
                        replaced.insert(id)
                        event(override, start: start, end: end, key: key, recurring: true)
                    } else {
                        event(index, start: occurrence.start, end: occurrence.end, key: key, recurring: true)
                    }
                }
            }
        }
        // Overrides of occurrences the series did not give (beyond the cap or window, or no master
        // in this file) stand on their own, by their own start.
        for (index, component) in components.enumerated() where component.kind == .event {
            guard let id = component.recurrenceID, let start = component.start, let end = component.end,
                  !replaced.contains(OverrideID(uid: component.uid, instant: id.instant)) else { continue }
            if start.instant <= limits.windowEnd { event(index, start: start, end: end, key: "\(component.uid)/\(id.recurrenceKey)", recurring: true) }
            else { outside(start.instant) }
        }
        return (items + CalendarItems.build(occurrences, shared: shared), firstOutside.map { $0 - lookAhead }, retained)
    }

    /// One `calendar` item to make: its component's shared fields plus its own.
    private struct Occurrence: Sendable {
        var component: Int
        var start: CalendarTime
        var end: CalendarTime
        var key: String
    }

    /// Makes the items (a JSON encoding and a hash each, the bulk of a large file's cost) on every
    /// core when there are enough of them; in the order given.
    private static func build(_ occurrences: [Occurrence], shared: [Int: [String: JSONValue]]) -> [Item] {
        @Sendable func item(_ o: Occurrence) -> Item {
            var fields = shared[o.component] ?? [:]
            fields["start"] = .string(o.start.rfc3339)
            fields["end"] = .string(o.end.rfc3339)
            return Item(endpoint: .calendar, key: o.key, fields: fields)
        }
        let chunk = 1024
        guard occurrences.count > chunk else { return occurrences.map(item) }
        let chunks = (occurrences.count + chunk - 1) / chunk
        let results = Locked([[Item]](repeating: [], count: chunks))
        DispatchQueue.concurrentPerform(iterations: chunks) { i in
            let made = occurrences[(i * chunk)..<min((i + 1) * chunk, occurrences.count)].map(item)
            results.withLock { $0[i] = made }
        }
        return results.withLock { $0.flatMap { $0 } }
    }

    private struct OverrideID: Hashable {
        var uid: String
        var instant: Int64
    }

    /// Every field of an event's item but `start` and `end`; `start` tells how its times are written.
    private func sharedFields(_ c: CalendarComponent, start: CalendarTime, recurring: Bool) -> [String: JSONValue] {
        [
            "uid": .string(c.uid),
            "title": .string(c.title ?? ""),
            "all_day": .bool(start.isDate),
            // A wall time with no zone at all says so (docs/node-api.md, Conventions).
            "time_floating": start.isFloating ? .bool(true) : .null,
            "tzid": JSONValue(start.tzid),
            "location": JSONValue(c.location),
            "status": JSONValue(c.status),
            "organizer": c.organizer.map { person($0, withRole: false) } ?? .null,
            "attendees": .array(c.attendees.map { person($0, withRole: true) }),
            "recurring": .bool(recurring),
            "calendar": .string(collection),
        ]
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
