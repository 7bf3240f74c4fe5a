import CICal

/// Why a whole .ics file could not be read.
enum ICalError: Error, Sendable, CustomStringConvertible {
    /// libical (libical.so.3) could not be loaded.
    case libraryUnavailable
    /// libical found no VCALENDAR in the bytes.
    case notICalendar

    var description: String {
        switch self {
        case .libraryUnavailable: "libical (libical.so.3) could not be loaded; install libical3"
        case .notICalendar: "not an iCalendar file (no BEGIN:VCALENDAR … END:VCALENDAR)"
        }
    }
}

/// What one .ics file holds, as plain values.
struct ICalendarContents: Sendable {
    /// X-WR-CALNAME of the (first) VCALENDAR.
    var calendarName: String?
    /// VEVENTs and VTODOs in file order, recurrence expanded.
    var components: [CalendarComponent] = []
    /// One line per component that was skipped, naming its line or UID and the reason.
    var problems: [String] = []
}

/// One parsed iCalendar text. Owns the `icalcomponent *` tree libical builds (freed in `deinit`);
/// this is the only file that sees libical's types.
final class ICalDocument {
    private let root: OpaquePointer

    /// Whether libical loads (and has every function used): `doctor` asks.
    static var libraryLoads: Bool { cical_load() == 1 }

    /// Parses `bytes` with libical (loaded on first use).
    init(_ bytes: [UInt8]) throws(ICalError) {
        guard ICalDocument.libraryLoads else { throw .libraryUnavailable }
        let parsed: OpaquePointer? = (bytes + [0]).withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { cical_parse_string($0.baseAddress) }
        }
        guard let parsed else { throw .notICalendar }
        root = parsed
        guard !calendars.isEmpty else { throw .notICalendar }
    }

    deinit { cical_component_free(root) }

    /// Reads `bytes` and expands every series within `limits`: a piece at a time (``ICalPieces``)
    /// when the text can be cut, else whole; a piece libical cannot read has the text read whole.
    ///
    /// The first piece of each VCALENDAR stays parsed until the end: the later pieces (which hold
    /// the same VTIMEZONEs) place their times in its zones, so each zone's transitions are worked
    /// out once, not once per piece.
    static func read(_ bytes: [UInt8], limits: RecurrenceLimits) throws(ICalError) -> ICalendarContents {
        try read(bytes, pieces: ICalPieces(bytes), limits: limits, eachPiece: nil)
    }

    /// `read`, cut into `pieces` when there are; with `eachPiece`, after each piece the components
    /// read and not yet taken are offered to it (with the calendar name found so far): those it
    /// takes (returning true) are not kept in the contents. Once some were taken, a later piece
    /// libical cannot read fails the text.
    static func read(_ bytes: [UInt8], pieces: ICalPieces?, limits: RecurrenceLimits,
                     eachPiece: ((_ components: [CalendarComponent], _ calendarName: String?) -> Bool)?) throws(ICalError) -> ICalendarContents {
        var reading = Reading(limits: limits, beginLines: beginLines(bytes), keepsAll: eachPiece == nil)
        var handedOver = false
        if let pieces {
            do throws(ICalError) {
                var firstPieces: [Int: ICalDocument] = [:]
                try pieces.eachPiece { (piece, calendar, places) throws(ICalError) in
                    let document = try ICalDocument(piece)
                    reading.startPiece(places: places)
                    let first = firstPieces[calendar] ?? document
                    firstPieces[calendar] = first
                    document.read(into: &reading, zonesOf: first.calendars.first)
                    if let eachPiece, eachPiece(reading.contents.components, reading.contents.calendarName) {
                        reading.contents.components.removeAll(keepingCapacity: true)
                        handedOver = true
                    }
                }
                return reading.finish()
            } catch {
                if case .libraryUnavailable = error { throw error }
                if handedOver { throw error }
                reading = Reading(limits: limits, beginLines: reading.beginLines, keepsAll: true)
            }
        }
        try ICalDocument(bytes).read(into: &reading, zonesOf: nil)
        return reading.finish()
    }

    /// The VCALENDARs: the root itself, or the children of the XROOT libical makes for several.
    private var calendars: [OpaquePointer] {
        if cical_component_kind(root) == ICAL_VCALENDAR_COMPONENT { return [root] }
        return children(of: root, ICAL_VCALENDAR_COMPONENT)
    }

    /// - Parameter zonesOf: the VCALENDAR whose VTIMEZONEs stand for this text's own of the
    ///   same TZID (the first piece's); nil for the text's own.
    private func read(into reading: inout Reading, zonesOf zoneCalendar: OpaquePointer?) {
        for calendar in calendars {
            let name = xProperty(calendar, "X-WR-CALNAME")
            if reading.contents.calendarName == nil { reading.contents.calendarName = name }
            // X-WR-TIMEZONE (Google, Apple) is the zone of the calendar's floating times.
            var defaultZone: ZoneRef?
            if let tzid = xProperty(calendar, "X-WR-TIMEZONE") {
                if let zone = tzid.withCString({ cical_builtin_timezone($0) }) { defaultZone = ZoneRef(pointer: zone, zone: .zoned(tzid: tzid)) }
                else {
                    let problem = "X-WR-TIMEZONE \(tzid) is not a known zone; floating times stay floating"
                    if !reading.contents.problems.contains(problem) { reading.contents.problems.append(problem) }   // once, not once per piece
                }
            }
            for component in children(of: calendar, ICAL_ANY_COMPONENT) {
                let kind: CalendarComponent.Kind
                switch cical_component_kind(component) {
                case ICAL_VEVENT_COMPONENT: kind = .event
                case ICAL_VTODO_COMPONENT: kind = .todo
                default: continue
                }
                // Each event or to-do leaves the tree once read: the tree of a large file is many
                // times its size, and the values read take its place.
                let place = reading.nextComponent()
                defer { cical_remove_component(calendar, component); cical_component_free(component) }
                let reader = ComponentReader(component: component, calendar: calendar, zoneCalendar: zoneCalendar, defaultZone: defaultZone)
                do throws(ComponentProblem) {
                    var value = try reader.read(kind, limits: reading.limits)
                    value.line = place < reading.beginLines.count ? reading.beginLines[place] : nil
                    reading.contents.components.append(value)
                } catch {
                    reading.skipped.append((place, reader.rawUID, error.reason))
                }
            }
        }
    }

    private func children(of parent: OpaquePointer, _ kind: icalcomponent_kind) -> [OpaquePointer] {
        var result: [OpaquePointer] = []
        var next = cical_first_component(parent, kind)
        while let child = next { result.append(child); next = cical_next_component(parent, kind) }
        return result
    }

    private func xProperty(_ component: OpaquePointer, _ name: String) -> String? {
        var next = cical_first_property(component, ICAL_X_PROPERTY)
        while let property = next {
            if let x = cical_property_x_name(property), String(cString: x).uppercased() == name,
               let value = cical_property_value(property).flatMap({ String(validatingCString: $0) }), !value.isEmpty {
                return value
            }
            next = cical_next_property(component, ICAL_X_PROPERTY)
        }
        return nil
    }
}

/// Why one component was skipped.
private struct ComponentProblem: Error {
    var reason: String
    init(_ reason: String) { self.reason = reason }
}

/// How the times of one property are placed: the libical zone (nil for dates, floating and
/// UTC, which need no conversion) and what the node is told.
private struct ZoneRef {
    var pointer: OpaquePointer?
    var zone: CalendarTime.Zone
}

/// Reads one VEVENT or VTODO. Its pointers belong to the enclosing `ICalDocument`.
private struct ComponentReader {
    let component: OpaquePointer
    let calendar: OpaquePointer
    /// Where a TZID's VTIMEZONE is looked up first (``ICalDocument/read(_:limits:)``); its
    /// pointers outlive this reader's.
    let zoneCalendar: OpaquePointer?
    let defaultZone: ZoneRef?

    /// Properties whose damage changes when or whether the component happens.
    static let essential = ["DTSTART", "DTEND", "DURATION", "DUE", "RRULE", "RDATE", "EXDATE", "RECURRENCE-ID", "COMPLETED"]

    /// The UID for a warning, invalid UTF-8 replaced.
    var rawUID: String? { cical_uid(component).map { String(cString: $0) } }

    func read(_ kind: CalendarComponent.Kind, limits: RecurrenceLimits) throws(ComponentProblem) -> CalendarComponent {
        for error in properties(ICAL_XLICERROR_PROPERTY) {
            let text = cical_property_value(error).map { String(cString: $0) } ?? ""
            if let name = ComponentReader.essential.first(where: { text.contains(" \($0) property") }) {
                throw ComponentProblem("bad \(name): \(text)")
            }
        }
        guard let uidPointer = cical_uid(component) else { throw ComponentProblem("no UID") }
        let uid = try text(uidPointer, "UID")
        guard !uid.isEmpty else { throw ComponentProblem("empty UID") }
        var value = CalendarComponent(kind: kind, uid: uid)
        value.title = try cical_summary(component).map { p throws(ComponentProblem) in try text(p, "SUMMARY") }
        value.location = try cical_location(component).map { p throws(ComponentProblem) in try text(p, "LOCATION") }
        value.status = try first(ICAL_STATUS_PROPERTY).flatMap(cical_property_value).map { p throws(ComponentProblem) in try text(p, "STATUS").lowercased() }
        value.organizer = try first(ICAL_ORGANIZER_PROPERTY).flatMap(person)
        for attendee in properties(ICAL_ATTENDEE_PROPERTY) {
            if let person = try person(attendee) { value.attendees.append(person) }
        }

        switch kind {
        case .todo:
            if let property = first(ICAL_DUE_PROPERTY), let (raw, ref) = try time(ICAL_DUE_PROPERTY, cical_property_datetime(property, calendar)) {
                value.due = place(raw, ref)
            }
            if let property = first(ICAL_COMPLETED_PROPERTY), let (raw, ref) = try time(ICAL_COMPLETED_PROPERTY, cical_property_datetime(property, calendar)) {
                value.completed = place(raw, ref)
            }
            if let property = first(ICAL_PRIORITY_PROPERTY) {
                let priority = Int(cical_property_priority(property))
                value.priority = (1...9).contains(priority) ? priority : nil
            }
        case .event:
            guard let (rawStart, startRef) = try time(ICAL_DTSTART_PROPERTY, cical_dtstart(component)) else { throw ComponentProblem("no DTSTART") }
            let start = place(rawStart, startRef)
            var end = start.isDate ? shift(start, by: 86_400, in: startRef) : start
            var endRef = startRef
            // Without DTEND libical gives DTSTART + DURATION, in DTSTART's zone.
            if let (rawEnd, ref) = try time(ICAL_DTEND_PROPERTY, cical_dtend(component), fallback: startRef), (rawEnd.is_date != 0) == start.isDate {
                let placed = place(rawEnd, ref)
                if placed.instant > start.instant { end = placed; endRef = ref }
            }
            value.start = start
            value.end = end
            // libical's own RECURRENCE-ID getter leaves the TZID unresolved; the property's does not.
            if let property = first(ICAL_RECURRENCEID_PROPERTY), let (rawID, ref) = try time(ICAL_RECURRENCEID_PROPERTY, cical_property_datetime(property, calendar)) {
                value.recurrenceID = place(rawID, ref)
            } else if first(ICAL_RRULE_PROPERTY) != nil || first(ICAL_RDATE_PROPERTY) != nil {
                value.series = try expand(rawStart, startRef, length: end.instant - start.instant, endRef: endRef, limits: limits)
            }
        }
        return value
    }

    // MARK: - Recurrence

    /// DTSTART, the RRULE's instances and the RDATEs, less the EXDATEs, in order, up to the
    /// window's end: the last `maxPerSeries` of them, and the starts of those before.
    private func expand(_ dtstart: icaltimetype, _ startRef: ZoneRef, length: Int64, endRef: ZoneRef, limits: RecurrenceLimits) throws(ComponentProblem) -> CalendarComponent.Series {
        var excluded = Set<Int64>()
        for property in properties(ICAL_EXDATE_PROPERTY) {
            if let (raw, ref) = try time(ICAL_EXDATE_PROPERTY, cical_property_datetime(property, calendar), property: property) { excluded.insert(place(raw, ref).instant) }
        }
        var starts = [place(dtstart, startRef)]
        var afterWindow: Int64?
        for property in properties(ICAL_RDATE_PROPERTY) {
            var raw = cical_property_datetime(property, calendar)
            if raw.year == 0 { raw = cical_property_rdate(property).period.start }     // RDATE;VALUE=PERIOD
            guard let (rdate, ref) = try time(ICAL_RDATE_PROPERTY, raw, property: property) else { continue }
            let placed = place(rdate, ref)
            if placed.instant <= limits.windowEnd { starts.append(placed) } else { afterWindow = min(afterWindow ?? .max, placed.instant) }
        }
        for property in properties(ICAL_RRULE_PROPERTY) {
            guard let iterator = cical_rrule_iterator(property, dtstart) else { throw ComponentProblem("RRULE that no date satisfies") }
            defer { cical_recur_free(iterator) }
            var budget = limits.maxIterations
            while budget > 0 {
                let next = cical_recur_next(iterator)
                guard next.year != 0 else { break }
                let placed = place(next, startRef)
                if placed.instant > limits.windowEnd { afterWindow = min(afterWindow ?? .max, placed.instant); break }
                starts.append(placed)
                budget -= 1
            }
        }
        starts.sort { $0.instant < $1.instant }
        var kept: [CalendarTime] = []
        var previous: Int64?
        for start in starts where start.instant != previous && !excluded.contains(start.instant) {
            previous = start.instant
            kept.append(start)
        }
        let cut = max(0, kept.count - limits.maxPerSeries)
        let occurrences = kept[cut...].lazy.map { CalendarComponent.Occurrence(start: $0, end: shift($0, by: length, in: endRef)) }
        guard let series = CalendarComponent.Series(occurrences: occurrences, beyondCap: Array(kept[..<cut]), nextAfterWindow: afterWindow) else {
            throw ComponentProblem("occurrences in more than 255 time zones")
        }
        return series
    }

    // MARK: - Times

    /// A property's time, with the zone it is placed in (its zone set on the returned value), or
    /// nil when there is none. Dates and UTC need no zone; a TZID names a VTIMEZONE of the file or
    /// an IANA zone; a floating time takes X-WR-TIMEZONE when the calendar has one. `fallback`
    /// places a time libical computed without the property (DTEND from DURATION).
    /// - Throws: when the TZID is neither a VTIMEZONE of the file nor a zone libical knows.
    private func time(_ kind: icalproperty_kind, _ raw: icaltimetype, property: OpaquePointer? = nil, fallback: ZoneRef? = nil) throws(ComponentProblem) -> (icaltimetype, ZoneRef)? {
        guard raw.year != 0 else { return nil }
        var raw = raw
        let ref: ZoneRef
        if raw.is_date != 0 { ref = ZoneRef(pointer: nil, zone: .date) }
        else if raw.zone == cical_utc_timezone() { ref = ZoneRef(pointer: nil, zone: .utc) }
        else if let property = property ?? first(kind) {
            if let tzid = cical_first_parameter(property, ICAL_TZID_PARAMETER).flatMap(cical_parameter_text).map({ String(cString: $0) }) {
                guard let zone = raw.zone else { throw ComponentProblem("unknown TZID \(tzid)") }
                let shared = zoneCalendar.flatMap { calendar in tzid.withCString { cical_timezone_of(calendar, $0) } }
                ref = ZoneRef(pointer: shared ?? zone, zone: .zoned(tzid: tzid))
            } else {
                ref = defaultZone ?? ZoneRef(pointer: nil, zone: .floating)
            }
        } else if let fallback { ref = fallback }
        else { return nil }
        if let pointer = ref.pointer { raw.zone = pointer }
        return (raw, ref)
    }

    /// `raw` (in `ref`'s zone) as a `CalendarTime`.
    private func place(_ raw: icaltimetype, _ ref: ZoneRef) -> CalendarTime {
        let wall = LocalDateTime(year: Int(raw.year), month: Int(raw.month), day: Int(raw.day),
                                 hour: raw.is_date != 0 ? 0 : Int(raw.hour), minute: raw.is_date != 0 ? 0 : Int(raw.minute), second: raw.is_date != 0 ? 0 : Int(raw.second))
        guard let pointer = ref.pointer else {
            return CalendarTime(wall: wall, zone: ref.zone, instant: CalendarTime.instant(ofWall: wall), offset: 0)
        }
        return at(Int64(cical_as_timet(raw, pointer)), pointer, ref.zone)
    }

    /// `time` moved by `seconds`, written in `ref`'s zone.
    private func shift(_ time: CalendarTime, by seconds: Int64, in ref: ZoneRef) -> CalendarTime {
        let instant = time.instant + seconds
        guard let pointer = ref.pointer else {
            return CalendarTime(wall: CalendarTime.utcWall(instant), zone: time.isDate || time.isFloating ? time.zone : ref.zone, instant: instant, offset: 0)
        }
        return at(instant, pointer, ref.zone)
    }

    /// The wall time and offset of `instant` in a libical zone: the zone's offset then, added to
    /// the UTC wall time (as libical's own conversion does, without its call to gmtime_r).
    private func at(_ instant: Int64, _ pointer: OpaquePointer, _ zone: CalendarTime.Zone) -> CalendarTime {
        let utc = CalendarTime.utcWall(instant)
        var time = icaltimetype()
        time.year = Int32(utc.year); time.month = Int32(utc.month); time.day = Int32(utc.day)
        time.hour = Int32(utc.hour); time.minute = Int32(utc.minute); time.second = Int32(utc.second)
        let offset = Int(cical_utc_offset_at(pointer, time))
        return CalendarTime(wall: CalendarTime.utcWall(instant + Int64(offset)), zone: zone, instant: instant, offset: offset)
    }

    // MARK: - Properties and text

    private func first(_ kind: icalproperty_kind) -> OpaquePointer? { cical_first_property(component, kind) }

    private func properties(_ kind: icalproperty_kind) -> [OpaquePointer] {
        var result: [OpaquePointer] = []
        var next = cical_first_property(component, kind)
        while let property = next { result.append(property); next = cical_next_property(component, kind) }
        return result
    }

    /// ORGANIZER or ATTENDEE; nil when its address is not an e-mail address.
    private func person(_ property: OpaquePointer) throws(ComponentProblem) -> CalendarComponent.Person? {
        guard let raw = cical_property_value(property) else { return nil }
        var address = try text(raw, "ATTENDEE")
        if address.lowercased().hasPrefix("mailto:") { address.removeFirst("mailto:".count) }
        guard address.contains("@") else { return nil }
        func parameter(_ kind: icalparameter_kind, _ name: String) throws(ComponentProblem) -> String? {
            guard let value = cical_first_parameter(property, kind).flatMap(cical_parameter_text) else { return nil }
            let text = try text(value, name)
            return text.isEmpty ? nil : text
        }
        return CalendarComponent.Person(name: try parameter(ICAL_CN_PARAMETER, "CN"), email: address,
                                        role: try parameter(ICAL_ROLE_PARAMETER, "ROLE")?.lowercased(),
                                        partstat: try parameter(ICAL_PARTSTAT_PARAMETER, "PARTSTAT")?.lowercased())
    }

    /// A C string from libical as Swift text; invalid UTF-8 is a problem, not replaced.
    private func text(_ pointer: UnsafePointer<CChar>, _ what: String) throws(ComponentProblem) -> String {
        guard let text = String(validatingCString: pointer) else { throw ComponentProblem("invalid UTF-8 in \(what)") }
        return text
    }
}
