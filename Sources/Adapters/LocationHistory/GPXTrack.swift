/// The track points of a GPX 1.0 or 1.1 file: `<trkpt lat="47.3769" lon="8.5417"><ele>408</ele>
/// <time>2024-06-01T07:00:00Z</time><speed>1.4</speed></trkpt>` (`speed` is GPX 1.0's; 1.1
/// keeps it in extensions, which are not read). Waypoints and routes are plans, not fixes. A time
/// without a zone (`2013-01-01T12:00:04`, older loggers) is UTC, as the GPX schema says.
struct GPXTrack: HistoryParser {
    private var reader: BlockReader
    private static let open = Array("<trkpt".utf8), close = Array("</trkpt>".utf8)

    init(_ reader: BlockReader) { self.reader = reader }

    mutating func read(into batch: inout HistoryBatch) throws(FileReadError) -> Bool {
        while !batch.isFull {
            guard let start = try reader.find(GPXTrack.open) else {
                reader.position = reader.bytes.count
                return false
            }
            advance(by: start)
            guard let tagEnd = try reader.find([UInt8(ascii: ">")]) else { throw FileReadError("cut off at line \(reader.line)") }
            let selfClosing = reader.bytes[reader.position + tagEnd - 1] == UInt8(ascii: "/")
            let end: Int
            if selfClosing { end = tagEnd + 1 } else {
                guard let close = try reader.find(GPXTrack.close, from: tagEnd) else { throw FileReadError("cut off at line \(reader.line)") }
                end = close + GPXTrack.close.count
            }
            let element = Array(reader.bytes[reader.position..<(reader.position + end)])
            let line = reader.line
            advance(by: end)
            if let fix = GPXTrack.fix(element, tagEnd: tagEnd) { batch.points.append(fix); batch.read += 1 } else { batch.reject(line: line) }
        }
        return true
    }

    private mutating func advance(by count: Int) {
        for i in reader.position..<(reader.position + count) where reader.bytes[i] == 0x0A { reader.line += 1 }
        reader.position += count
    }

    static func fix(_ element: [UInt8], tagEnd: Int) -> Fix? {
        let tag = Array(element[..<tagEnd])
        guard let lat = attribute("lat", tag).flatMap(Double.init), let lon = attribute("lon", tag).flatMap(Double.init),
              let time = child("time", element).flatMap({ HistoryTime.parse($0.utf8, zonelessIsUTC: true) }) else { return nil }
        return Fix(time: time, latitude: lat, longitude: lon, altitude: child("ele", element).flatMap(Float.init),
                   speed: child("speed", element).flatMap(Float.init))
    }

    /// The value of attribute `name` in a start tag, either quote.
    static func attribute(_ name: String, _ tag: [UInt8]) -> String? {
        for quote in [UInt8(ascii: "\""), UInt8(ascii: "'")] {
            let needle = [0x20] + Array(name.utf8) + [UInt8(ascii: "="), quote]
            var at = BlockReader.index(of: needle, in: tag, from: 0)
            if at == nil { at = BlockReader.index(of: [0x0A] + needle.dropFirst(), in: tag, from: 0) }
            guard let found = at else { continue }
            let from = found + needle.count
            guard let to = tag[from...].firstIndex(of: quote) else { return nil }
            return String(decoding: tag[from..<to], as: UTF8.self)
        }
        return nil
    }

    /// The text of the first child element `name`, trimmed.
    static func child(_ name: String, _ element: [UInt8]) -> String? {
        guard let at = BlockReader.index(of: Array("<\(name)>".utf8), in: element, from: 0) else { return nil }
        let from = at + name.utf8.count + 2
        guard let to = BlockReader.index(of: Array("</\(name)>".utf8), in: element, from: from) else { return nil }
        let text = element[from..<to].drop { $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }
        return String(decoding: text.reversed().drop { $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }.reversed(), as: UTF8.self)
    }
}
