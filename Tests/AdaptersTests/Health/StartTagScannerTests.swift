import Foundation
import Testing
@testable import Adapters

/// The streaming tag scanner on a hand-written Apple Health export: the DTD, children, entities,
/// tags cut across blocks, and a file cut off mid-tag.
struct StartTagScannerTests {
    static let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("fixtures/health/export-small.xml").path

    /// A tag copied out of the scanner's buffer.
    struct Seen { var name: String; var attributes: [String: String]; var line: Int }

    func tags(blockSize: Int) throws -> [Seen] {
        var scanner = StartTagScanner(stream: try FileByteStream(path: Self.fixture), names: ["Record", "Workout", "WorkoutStatistics", "ActivitySummary"])
        scanner.blockSize = blockSize
        var out: [Seen] = []
        try scanner.scan { out.append(Seen(name: $0.name, attributes: $0.attributes, line: $0.line)) }
        return out
    }

    @Test func theWantedTagsComeOutWithTheirAttributesDecodedAndTheirLines() throws {
        let all = try tags(blockSize: 1 << 20)
        #expect(all.map(\.name) == ["Record", "Record", "Record", "Record", "Workout", "WorkoutStatistics", "WorkoutStatistics", "ActivitySummary"],
                "the DTD's <!ATTLIST Record> is not a Record, and the record cut off at the end is dropped")
        #expect(all[0].attributes["sourceName"] == "Anna's Apple Watch")
        #expect(all[0].attributes["device"] == "<<HKDevice: 0x283b1c2d0>, name:Apple Watch, manufacturer:Apple Inc., model:Watch>")
        #expect(all[0].attributes["value"] == "812")
        #expect(all[0].attributes["startDate"] == "2024-06-01 08:00:00 +0200")
        #expect(all[1].attributes["sourceName"] == "Anna’s iPhone")
        #expect(all[3].attributes["value"] == "HKCategoryValueSleepAnalysisAsleepCore")
        #expect(all[5].attributes["sum"] == "5.21" && all[6].attributes["unit"] == "kcal")
        #expect(all[7].attributes["dateComponents"] == "2024-06-01")
        #expect(all.map(\.line) == [13, 14, 15, 18, 19, 20, 21, 23])
    }

    @Test func tinyBlocksGiveExactlyWhatOneBigBlockGives() throws {
        let big = try tags(blockSize: 1 << 20)
        for size in [1, 7, 64, 333] {
            let small = try tags(blockSize: size)
            #expect(small.map(\.attributes) == big.map(\.attributes), "block size \(size)")
            #expect(small.map(\.line) == big.map(\.line), "block size \(size)")
        }
    }

    @Test func entitiesAndCharacterReferencesDecode() {
        let text = Array("a&amp;b &lt;c&gt; &quot;d&apos; &#233;&#x1F600; &unknown; &".utf8)
        #expect(text.withUnsafeBufferPointer { StartTagScanner.decodeEntities($0) } == "a&b <c> \"d' é😀 &unknown; &")
    }

    @Test func onlyTheAttributesAskedForAreLookedUp() throws {
        var values: [String?] = []
        try StartTagScanner(stream: try FileByteStream(path: Self.fixture), names: ["Record"]).scan { tag in
            values.append(tag.value("sourceName")); values.append(tag.value("nope"))
        }
        #expect(values.prefix(4) == ["Anna's Apple Watch", nil, "Anna’s iPhone", nil])
    }

    @Test func aMissingFileIsOneLine() {
        #expect(throws: FileReadError("cannot open: No such file or directory")) { try FileByteStream(path: "/nonexistent/export.xml") }
    }
}
