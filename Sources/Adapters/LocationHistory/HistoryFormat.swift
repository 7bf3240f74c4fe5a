/// The export formats this adapter reads, each found from a file's first bytes, never its name.
enum HistoryFormat: String, CaseIterable, Sendable {
    case gpx, records = "takeout-records", semantic = "takeout-semantic", timeline = "timeline-json",
         owntracks = "owntracks-rec", geojson, timelineArray = "timeline-ios", timelineEdits = "timeline-edits",
         settings = "takeout-settings", kml, tcx, fit

    /// The format of a file beginning with `head`, or nil.
    static func detect(_ head: ArraySlice<UInt8>) -> HistoryFormat? {
        if FITRecords.isHeader(head) { return .fit }
        var body = head
        if body.starts(with: [0xEF, 0xBB, 0xBF]) { body = body.dropFirst(3) }
        guard let first = body.firstIndex(where: { !($0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09) }) else { return nil }
        let bytes = Array(body[first...])
        switch bytes[0] {
        case UInt8(ascii: "<"):
            // The root element (KML's also as `<kml:kml`).
            let roots: [(String, HistoryFormat)] = [("<gpx", .gpx), ("<TrainingCenterDatabase", .tcx), ("<kml", .kml)]
            return roots.first { BlockReader.index(of: Array($0.0.utf8), in: bytes, from: 0) != nil }?.1
        case UInt8(ascii: "{"):
            // The first of the keys that tell the formats apart.
            let marks: [(String, HistoryFormat)] = [("\"locations\"", .records), ("\"timelineObjects\"", .semantic),
                                                    ("\"semanticSegments\"", .timeline), ("\"rawSignals\"", .timeline),
                                                    ("\"FeatureCollection\"", .geojson), ("\"features\"", .geojson),
                                                    ("\"timelineEdits\"", .timelineEdits), ("\"deviceSettings\"", .settings)]
            return marks.compactMap { mark, format in BlockReader.index(of: Array(mark.utf8), in: bytes, from: 0).map { ($0, format) } }
                .min { $0.0 < $1.0 }?.1
        case UInt8(ascii: "["):
            return isTimelineArray(bytes) ? .timelineArray : nil
        case UInt8(ascii: "0")...UInt8(ascii: "9"):
            // An OwnTracks Recorder line: `2024-06-01T07:00:00Z<TAB>topic<TAB>{json}`.
            let line = bytes.prefix { $0 != 0x0A }
            return HistoryTime.parse(line.prefix { $0 != 0x09 }) != nil && line.contains(0x09) ? .owntracks : nil
        default:
            return nil
        }
    }

    /// The iPhone's Timeline export, a bare array of segments: a `startTime` and a segment kind
    /// (other JSON arrays, such as Spotify's play history with its `endTime`, have none).
    private static func isTimelineArray(_ bytes: [UInt8]) -> Bool {
        func has(_ key: String) -> Bool { BlockReader.index(of: Array("\"\(key)\"".utf8), in: bytes, from: 0) != nil }
        return has("startTime") && ["visit", "activity", "timelinePath", "timelineMemory"].contains(where: has)
    }

    /// The parser of this format over `reader`.
    func parser(_ reader: BlockReader) -> any HistoryParser {
        switch self {
        case .gpx: GPXTrack(reader)
        case .records: TakeoutRecords(reader)
        case .semantic: SemanticHistory(reader)
        case .timeline: TimelineExport(reader)
        case .owntracks: OwnTracksRecorder(reader)
        case .geojson: GeoJSONPoints(reader)
        case .timelineArray: TimelineExport(segmentsOf: reader)
        case .timelineEdits: TimelineEdits(reader)
        case .settings: TakeoutSettings(reader)
        case .kml: KMLPlaces(reader)
        case .tcx: TCXTrack(reader)
        case .fit: FITRecords(reader)
        }
    }
}

/// One format's reader: it adds what it reads to a batch, a piece (an element, a line, a track
/// point) at a time, so the caller can store a full batch before reading on.
protocol HistoryParser {
    /// Reads on until `batch` is full or the input ends; false once it has ended. A cut-off or
    /// broken input throws, after everything before the break was added.
    mutating func read(into batch: inout HistoryBatch) throws(FileReadError) -> Bool
}

/// The parsers of JSON exports: elements of chosen top-level arrays, each parsed on its own.
protocol JSONElementParser: HistoryParser {
    var elements: JSONElementStream { get set }
    /// Adds what one element holds; false when it is not what the format says.
    func take(_ element: [UInt8], key: String, into batch: inout HistoryBatch) -> Bool
}

extension JSONElementParser {
    mutating func read(into batch: inout HistoryBatch) throws(FileReadError) -> Bool {
        while !batch.isFull {
            guard let (key, element, line) = try elements.next() else { return false }
            if take(element, key: key, into: &batch) { batch.read += 1 } else { batch.reject(line: line) }
        }
        return true
    }
}
