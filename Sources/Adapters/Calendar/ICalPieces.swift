/// An iCalendar text cut into pieces that libical parses one after another: each piece is one
/// VCALENDAR's own lines (its properties, VTIMEZONEs and other non-event blocks) with about
/// `perPiece` of its VEVENTs and VTODOs. libical's tree of a whole file is about twelve times the
/// file's size; so only one piece's tree is held at a time. The components of one UID (a series
/// and its RECURRENCE-ID overrides, wherever they sit in the file) are always in the same piece.
///
/// Only `BEGIN:`/`END:` lines and the UID lines of events and to-dos are looked at (a folded
/// line's continuation starts with a blank, so it is never one). A text whose blocks do not nest,
/// that holds anything but VCALENDARs at its top, or that has one UID in two VCALENDARs has no
/// pieces: libical then reads it whole, and recovers from it as it does.
struct ICalPieces {
    private struct Calendar {
        /// The VCALENDAR's own lines, `BEGIN:VCALENDAR` first, `END:VCALENDAR` not included.
        var header: [Range<Int>] = []
        var components: [Range<Int>] = []
        /// Each component's UID, unfolded (nil without a UID line).
        var uids: [[UInt8]?] = []
        var end: Range<Int> = 0..<0
    }

    /// A VCALENDAR's number and the positions in it of the components of one piece.
    private struct Piece {
        var calendar: Int
        var components: [Int]
    }

    private let bytes: [UInt8]
    private let calendars: [Calendar]
    private let pieces: [Piece]

    /// nil when the text is better read whole: its blocks do not nest, it is one piece anyway, or
    /// a UID is in two VCALENDARs (an override could then be in another one than its series).
    init?(_ bytes: [UInt8], perPiece: Int = 200) {
        guard let calendars = ICalPieces.layout(bytes),
              calendars.count > 1 || calendars.contains(where: { $0.components.count > perPiece }),
              let pieces = ICalPieces.pieces(of: calendars, perPiece: perPiece) else { return nil }
        self.bytes = bytes; self.calendars = calendars; self.pieces = pieces
    }

    /// How many pieces there are.
    var count: Int { pieces.count }

    /// Each piece's text, in order, with the number of the VCALENDAR it is of and, for each of its
    /// components, its place among the text's VEVENTs and VTODOs (pieces need not keep file order).
    func eachPiece(_ body: ([UInt8], _ calendar: Int, _ places: [Int]) throws(ICalError) -> Void) throws(ICalError) {
        let firstPlaces = calendars.reduce(into: [0]) { $0.append($0.last! + $1.components.count) }
        for piece in pieces {
            let calendar = calendars[piece.calendar]
            var text: [UInt8] = []
            for range in calendar.header { text += bytes[range] }
            for component in piece.components { text += bytes[calendar.components[component]] }
            text += bytes[calendar.end]
            try body(text, piece.calendar, piece.components.map { firstPlaces[piece.calendar] + $0 })
        }
    }

    /// Each VCALENDAR's components in pieces of about `perPiece`, a UID's all in one, each UID's
    /// group where its first component is; nil when a UID is in two VCALENDARs.
    private static func pieces(of calendars: [Calendar], perPiece: Int) -> [Piece]? {
        var calendarOf: [[UInt8]: Int] = [:]
        var pieces: [Piece] = []
        for (number, calendar) in calendars.enumerated() {
            var groups: [[Int]] = []
            var groupOf: [[UInt8]: Int] = [:]
            for (position, uid) in calendar.uids.enumerated() {
                guard let uid else { groups.append([position]); continue }
                if let group = groupOf[uid] { groups[group].append(position); continue }
                guard calendarOf.updateValue(number, forKey: uid) == nil else { return nil }
                groupOf[uid] = groups.count
                groups.append([position])
            }
            var piece = Piece(calendar: number, components: [])
            for group in groups {
                if !piece.components.isEmpty, piece.components.count + group.count > perPiece {
                    pieces.append(piece)
                    piece.components = []
                }
                piece.components += group
            }
            pieces.append(piece)                      // a VCALENDAR without components is still a piece: its name
        }
        return pieces
    }

    /// The VCALENDARs' lines and blocks; nil when BEGIN and END do not nest or something else is at the top.
    private static func layout(_ bytes: [UInt8]) -> [Calendar]? {
        var calendars: [Calendar] = []
        var open: [ArraySlice<UInt8>] = []            // names of the blocks the line is in
        var blockStart = 0                            // where the depth-2 block being read began
        var uid = UIDLine()
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
                    uid = UIDLine()
                }
                open.append(name)
            } else if let name = blockName(content, end) {
                guard let top = open.popLast(), top.elementsEqual(name) else { return nil }
                if open.isEmpty { calendars[calendars.count - 1].end = line }
                else if open.count == 1 {
                    let block = blockStart..<next
                    if top.elementsEqual("VEVENT".utf8) || top.elementsEqual("VTODO".utf8) {
                        calendars[calendars.count - 1].components.append(block)
                        calendars[calendars.count - 1].uids.append(uid.value)
                    } else { calendars[calendars.count - 1].header.append(block) }
                }
            } else if open.count == 1 {
                calendars[calendars.count - 1].header.append(line)
            } else if open.count == 2 {
                uid.read(content)
            } else if open.isEmpty, content.contains(where: { $0 != 0x20 && $0 != 0x09 }) {
                return nil                            // text outside any VCALENDAR
            }
            lineStart = next
        }
        return open.isEmpty && !calendars.isEmpty ? calendars : nil
    }

    /// A component's UID, read from its own lines (not those of an alarm inside it), with the
    /// continuation lines of a folded one.
    private struct UIDLine {
        private(set) var value: [UInt8]?
        private var continues = false

        mutating func read(_ content: ArraySlice<UInt8>) {
            if let first = content.first, first == 0x20 || first == 0x09 {
                if continues { value! += content.dropFirst() }
                return
            }
            continues = false
            guard value == nil, content.count > 3, ICalPieces.startsWith(content, ICalPieces.uidName),
                  [UInt8(ascii: ":"), UInt8(ascii: ";")].contains(content[content.startIndex + 3]),
                  let colon = content.firstIndex(of: UInt8(ascii: ":")) else { return }
            value = Array(content[(colon + 1)...])
            continues = true
        }
    }

    private static let begin = Array("BEGIN:".utf8), end = Array("END:".utf8), uidName = Array("UID".utf8)

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
