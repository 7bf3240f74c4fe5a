/// An iCalendar text cut into pieces that libical parses one after another: each piece is one
/// VCALENDAR's own lines (its properties, VTIMEZONEs and other non-event blocks) with up to
/// `perPiece` of its VEVENTs and VTODOs, in file order. libical's tree of a whole file is about
/// twelve times the file's size; so only one piece's tree is held at a time.
///
/// Only `BEGIN:`/`END:` lines are looked at (a folded line's continuation starts with a blank, so
/// it is never one). A text whose blocks do not nest, or that holds anything but VCALENDARs at
/// its top, has no pieces: libical then reads it whole, and recovers from it as it does.
struct ICalPieces {
    private struct Calendar {
        /// The VCALENDAR's own lines, `BEGIN:VCALENDAR` first, `END:VCALENDAR` not included.
        var header: [Range<Int>] = []
        var components: [Range<Int>] = []
        var end: Range<Int> = 0..<0
    }

    private let bytes: [UInt8]
    private let calendars: [Calendar]
    private let perPiece: Int
    /// Whether a VEVENT or VTODO has a RECURRENCE-ID line: an override may then be in another piece than its series.
    let hasOverrides: Bool

    /// nil when the text is better read whole: its blocks do not nest, or it is one piece anyway.
    init?(_ bytes: [UInt8], perPiece: Int = 200) {
        guard let (calendars, hasOverrides) = ICalPieces.layout(bytes),
              calendars.count > 1 || calendars.contains(where: { $0.components.count > perPiece }) else { return nil }
        self.bytes = bytes; self.calendars = calendars; self.perPiece = perPiece; self.hasOverrides = hasOverrides
    }

    /// How many pieces there are.
    var count: Int { calendars.reduce(0) { $0 + max(1, ($1.components.count + perPiece - 1) / perPiece) } }

    /// Each piece's text, in order, with the number of the VCALENDAR it is of.
    func eachPiece(_ body: ([UInt8], _ calendar: Int) throws(ICalError) -> Void) throws(ICalError) {
        for (number, calendar) in calendars.enumerated() {
            for start in stride(from: 0, to: max(calendar.components.count, 1), by: perPiece) {
                var text: [UInt8] = []
                for range in calendar.header { text += bytes[range] }
                for range in calendar.components[start..<min(start + perPiece, calendar.components.count)] { text += bytes[range] }
                text += bytes[calendar.end]
                try body(text, number)
            }
        }
    }

    /// The VCALENDARs' lines and blocks; nil when BEGIN and END do not nest or something else is at the top.
    private static func layout(_ bytes: [UInt8]) -> (calendars: [Calendar], hasOverrides: Bool)? {
        var calendars: [Calendar] = []
        var hasOverrides = false
        var open: [ArraySlice<UInt8>] = []            // names of the blocks the line is in
        var blockStart = 0                            // where the depth-2 block being read began
        var lineStart = 0
        while lineStart < bytes.count {
            var lineEnd = lineStart
            while lineEnd < bytes.count, bytes[lineEnd] != 0x0A { lineEnd += 1 }
            let next = min(lineEnd + 1, bytes.count)
            var content = bytes[lineStart..<lineEnd]
            if content.last == 0x0D { content = content.dropLast() }
            let line = lineStart..<next
            if let name = blockName(content, begin) {
                if open.isEmpty {
                    guard name.elementsEqual("VCALENDAR".utf8) else { return nil }
                    calendars.append(Calendar(header: [line]))
                } else if open.count == 1 {
                    blockStart = lineStart
                }
                open.append(name)
            } else if let name = blockName(content, end) {
                guard let top = open.popLast(), top.elementsEqual(name) else { return nil }
                if open.isEmpty { calendars[calendars.count - 1].end = line }
                else if open.count == 1 {
                    let block = blockStart..<next
                    if top.elementsEqual("VEVENT".utf8) || top.elementsEqual("VTODO".utf8) { calendars[calendars.count - 1].components.append(block) }
                    else { calendars[calendars.count - 1].header.append(block) }
                }
            } else if open.count == 1 {
                calendars[calendars.count - 1].header.append(line)
            } else if open.count == 2, !hasOverrides, startsWith(content, recurrenceID) {
                hasOverrides = true
            } else if open.isEmpty, content.contains(where: { $0 != 0x20 && $0 != 0x09 }) {
                return nil                            // text outside any VCALENDAR
            }
            lineStart = next
        }
        return open.isEmpty && !calendars.isEmpty ? (calendars, hasOverrides) : nil
    }

    private static let begin = Array("BEGIN:".utf8), end = Array("END:".utf8), recurrenceID = Array("RECURRENCE-ID".utf8)

    /// Whether `line` starts with `prefix` (upper-case ASCII), matched case-insensitively.
    private static func startsWith(_ line: ArraySlice<UInt8>, _ prefix: [UInt8]) -> Bool {
        line.count >= prefix.count && zip(line, prefix).allSatisfy { $0 & 0xDF == $1 & 0xDF }
    }

    /// The upper-cased name after `prefix` (`BEGIN:` or `END:`, matched case-insensitively) on a
    /// line, trailing blanks dropped.
    private static func blockName(_ line: ArraySlice<UInt8>, _ prefix: [UInt8]) -> ArraySlice<UInt8>? {
        guard line.count > prefix.count, startsWith(line, prefix) else { return nil }
        var name = line.dropFirst(prefix.count)
        while let last = name.last, last == 0x20 || last == 0x09 { name = name.dropLast() }
        return ArraySlice(name.map { $0 >= 0x61 && $0 <= 0x7A ? $0 - 0x20 : $0 })
    }
}
