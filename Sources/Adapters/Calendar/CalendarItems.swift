import IngestCore

/// The `calendar` and `reminders` items of one file's components (docs/node-api.md).
struct CalendarItems {
    /// The collection's name: `calendar` of events, `list` of to-dos.
    let collection: String
    let limits: RecurrenceLimits
    /// Seconds the window reaches past now.
    let lookAhead: Int64

    /// Items, plus the moment (seconds since 1970) from which the file must be read again because
    /// an occurrence it holds then enters the window.
    func make(_ components: [CalendarComponent]) -> (items: [Item], refreshAt: Int64?) {
        var items: [Item] = []
        var firstOutside: Int64?
        func outside(_ instant: Int64) { firstOutside = min(firstOutside ?? .max, instant) }

        // RECURRENCE-ID overrides replace the occurrence they name, matched by instant.
        var overrides: [String: [Int64: CalendarComponent]] = [:]
        for component in components where component.kind == .event {
            if let id = component.recurrenceID { overrides[component.uid, default: [:]][id.instant] = component }
        }
        var replaced = Set<OverrideID>()
        for component in components {
            switch component.kind {
            case .todo:
                items.append(reminder(component))
            case .event where component.recurrenceID != nil:
                continue                                         // placed with (or after) its series below
            case .event:
                guard let series = component.series else {
                    guard let start = component.start, let end = component.end else { continue }
                    if start.instant <= limits.windowEnd { items.append(event(component, start: start, end: end, key: component.uid, recurring: false)) }
                    else { outside(start.instant) }
                    continue
                }
                if let next = series.nextAfterWindow { outside(next) }
                for occurrence in series.occurrences {
                    let id = OverrideID(uid: component.uid, instant: occurrence.start.instant)
                    if let override = overrides[component.uid]?[occurrence.start.instant], let start = override.start, let end = override.end {
                        replaced.insert(id)
                        items.append(event(override, start: start, end: end, key: "\(component.uid)/\(occurrence.start.recurrenceKey)", recurring: true))
                    } else {
                        items.append(event(component, start: occurrence.start, end: occurrence.end, key: "\(component.uid)/\(occurrence.start.recurrenceKey)", recurring: true))
                    }
                }
            }
        }
        // Overrides of occurrences the series did not give (beyond the cap or window, or no master
        // in this file) stand on their own, by their own start.
        for component in components where component.kind == .event {
            guard let id = component.recurrenceID, let start = component.start, let end = component.end,
                  !replaced.contains(OverrideID(uid: component.uid, instant: id.instant)) else { continue }
            if start.instant <= limits.windowEnd { items.append(event(component, start: start, end: end, key: "\(component.uid)/\(id.recurrenceKey)", recurring: true)) }
            else { outside(start.instant) }
        }
        return (items, firstOutside.map { $0 - lookAhead })
    }

    private struct OverrideID: Hashable {
        var uid: String
        var instant: Int64
    }

    private func event(_ c: CalendarComponent, start: CalendarTime, end: CalendarTime, key: String, recurring: Bool) -> Item {
        Item(endpoint: .calendar, key: key, fields: [
            "uid": .string(c.uid),
            "title": .string(c.title ?? ""),
            "start": .string(start.rfc3339),
            "end": .string(end.rfc3339),
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
        ])
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
