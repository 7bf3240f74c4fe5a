@testable import Adapters

/// export.xml's start-tag scanner with every attribute decoded: once in one read, once in
/// small reads into small blocks, so tags cut across blocks and tags longer than a block occur.
enum StartTagHarness {
    static let names: Set<String> = ["Record", "Workout", "WorkoutStatistics", "ActivitySummary", "/HealthData"]

    static func run(_ bytes: [UInt8]) {
        scan(ChunkedByteStream(bytes), blockSize: 1 << 20)
        scan(ChunkedByteStream(bytes, chunk: 7), blockSize: 32)
    }

    static func scan(_ stream: ChunkedByteStream, blockSize: Int) {
        var scanner = StartTagScanner(stream: stream, names: names)
        scanner.blockSize = blockSize
        _ = try? scanner.scan { tag in _ = tag.attributes }
    }
}
