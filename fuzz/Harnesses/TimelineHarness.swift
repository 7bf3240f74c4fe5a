@testable import Adapters

/// One Timeline parser over any input, whole and in 7-byte reads, its batch packed into records,
/// and those read back as a day whose tagged devices go through `DevicePicker`.
enum TimelineHarness {
    static func run(_ format: HistoryFormat, _ bytes: [UInt8]) {
        for chunk in [Int.max, 7] {
            var parser = format.parser(BlockReader(ChunkedByteStream(bytes, chunk: chunk)))
            var batch = HistoryBatch()
            var more = true
            while more {
                more = (try? parser.read(into: &batch)) == true
                let day = HistoryRecords.decode(batch.takeRecords().filter { $0.group.hasPrefix("d:") })
                let picker = DevicePicker(zone: .utc)
                var hours = DevicePicker.HourCounts()
                picker.count(day.devices, into: &hours)
                _ = HistoryRecords.deduplicated(day.points + picker.choose(day.devices, hours: hours))
            }
        }
    }
}

/// The iPhone's `location-history.json`, a bare array of segments.
enum TimelineArrayHarness {
    static func run(_ bytes: [UInt8]) { TimelineHarness.run(.timelineArray, bytes) }
}

/// Takeout's `Timeline Edits.json`, its positions tagged by device.
enum TimelineEditsHarness {
    static func run(_ bytes: [UInt8]) { TimelineHarness.run(.timelineEdits, bytes) }
}
