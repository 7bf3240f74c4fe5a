@testable import Adapters

/// One fitness or map format's reader (`fit`, `kml`, `tcx`) over any bytes, whole and in 7-byte
/// reads, so a FIT record or an XML tag is cut at every place a block can end; `fit` also reads
/// the input as a gzip (`.fit.gz`) through `GzipStream`.
enum FitnessHarness {
    static func run(_ format: HistoryFormat, _ bytes: [UInt8]) {
        for chunk in [Int.max, 7] {
            LocationHistoryHarness.drain(format.parser(BlockReader(ChunkedByteStream(bytes, chunk: chunk))))
        }
        if format == .fit, let gzip = try? GzipStream(ChunkedByteStream(bytes, chunk: 5)) {
            LocationHistoryHarness.drain(format.parser(BlockReader(gzip)))
        }
    }

    static func fit(_ bytes: [UInt8]) { run(.fit, bytes) }
    static func kml(_ bytes: [UInt8]) { run(.kml, bytes) }
    static func tcx(_ bytes: [UInt8]) { run(.tcx, bytes) }
}
