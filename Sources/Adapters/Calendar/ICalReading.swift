/// What reading an iCalendar text gathers besides libical's tree: the components read so far
/// and the lines their blocks begin on, for warnings.
extension ICalDocument {
    /// What the components read so far gave, across the pieces of one text.
    struct Reading {
        let limits: RecurrenceLimits
        let beginLines: [Int]
        var contents = ICalendarContents()
        var skipped: [(index: Int, uid: String?, reason: String)] = []
        /// VEVENTs and VTODOs met so far.
        private(set) var index = 0
        /// The places in the text of the components of the piece being read (a piece keeps a UID's
        /// components together, not file order); empty when the text is read whole.
        private var piecePlaces: [Int] = []
        private var inPiece = 0

        /// - Parameter keepsAll: whether the text's components are all kept, not handed over a piece at a time.
        init(limits: RecurrenceLimits, beginLines: [Int], keepsAll: Bool) {
            self.limits = limits; self.beginLines = beginLines
            if keepsAll { contents.components.reserveCapacity(beginLines.count) }    // not doubled as it grows: 5000 events are 2 MB
        }

        mutating func startPiece(places: [Int]) { piecePlaces = places; inPiece = 0 }

        /// The next component's place among the text's VEVENTs and VTODOs, counting it as met.
        mutating func nextComponent() -> Int {
            defer { index += 1; inPiece += 1 }
            return inPiece < piecePlaces.count ? piecePlaces[inPiece] : index
        }

        func finish() -> ICalendarContents {
            var contents = contents
            // Line numbers only when libical kept every component the text begins.
            let linesMatch = beginLines.count == index
            for skip in skipped.sorted(by: { $0.index < $1.index }) {
                let place = [linesMatch ? "line \(beginLines[skip.index])" : nil, skip.uid.map { "UID \($0)" }].compactMap { $0 }.joined(separator: ", ")
                contents.problems.append("\(place.isEmpty ? "a component" : place): \(skip.reason); skipped")
            }
            return contents
        }
    }

    /// 1-based lines of `BEGIN:VEVENT` and `BEGIN:VTODO`, in order.
    static func beginLines(_ bytes: [UInt8]) -> [Int] {
        var lines: [Int] = []
        var line = 1
        var start = 0
        let event = Array("BEGIN:VEVENT".utf8), todo = Array("BEGIN:VTODO".utf8)
        func matches(_ word: [UInt8], at i: Int) -> Bool {
            guard i + word.count <= bytes.count else { return false }
            for k in 0..<word.count where bytes[i + k] & 0xDF != word[k] & 0xDF { return false }   // ASCII case-insensitive
            return true
        }
        for (i, byte) in bytes.enumerated() where byte == UInt8(ascii: "\n") || i == start {
            if i == start, matches(event, at: i) || matches(todo, at: i) { lines.append(line) }
            if byte == UInt8(ascii: "\n") { line += 1; start = i + 1 }
        }
        return lines
    }
}
