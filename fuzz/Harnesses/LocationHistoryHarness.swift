@testable import Adapters

/// The location-history parsers: every format's reader over every input (not just the one the
/// content names), whole and in 7-byte reads, so each sees the others' shapes cut anywhere;
/// and a zip's entries one after another through `ZipEntryStream.next`.
enum LocationHistoryHarness {
    static func run(_ bytes: [UInt8]) {
        for chunk in [Int.max, 7] {
            var head = BlockReader(ChunkedByteStream(bytes, chunk: chunk))
            _ = HistoryFormat.detect(head.head(64 * 1024))
            for format in HistoryFormat.allCases { drain(format.parser(BlockReader(ChunkedByteStream(bytes, chunk: chunk)))) }
        }
        guard let zip = try? ZipEntryStream(ChunkedByteStream(bytes, chunk: 5), wanted: { _ in true }) else { return }
        repeat {
            var reader = BlockReader(zip)
            if let format = HistoryFormat.detect(reader.head(4096)) { drain(format.parser(reader)) }
        } while (try? zip.next(wanted: { _ in true })) == true
    }

    /// The batches as records, decoded back, and their region events paired into stated visits.
    static func drain(_ parser: any HistoryParser) {
        var parser = parser, batch = HistoryBatch()
        var more = true
        while more {
            more = (try? parser.read(into: &batch)) == true
            var day = HistoryRecords.decode(batch.takeRecords())
            RegionStays.locate(&day.regionEvents, from: day.points, within: 900)
            _ = RegionStays.visits(day.regionEvents, regions: day.regions)
        }
    }
}
