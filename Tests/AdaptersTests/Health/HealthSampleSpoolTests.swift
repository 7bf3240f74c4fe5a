import Foundation
import Testing
@testable import Adapters
import IngestCore

/// Chunks read in order are stored as they come; once a chunk goes back to earlier days of its
/// kinds, it and the rest are spooled and come out sorted, a key read twice keeping its later value.
struct HealthSampleSpoolTests {
    func record(_ day: Int, _ shelf: UInt8, _ key: UInt8, value: UInt8 = 0) -> StateRecord {
        StateRecord(group: "2024-06-\(day < 10 ? "0" : "")\(day)", shelf: shelf, key: [key], value: [value])
    }

    /// A chunk of `days`, every shelf of 1…3 and keys 0…9 in each, in time order across kinds.
    func chunk(_ days: [Int], value: UInt8 = 0) -> [StateRecord] {
        days.flatMap { day in (0..<10).flatMap { key in (1...3).map { shelf in record(day, shelf, UInt8(key), value: value) } } }
    }

    /// What the spool hands on at the end, in chunks of at most `size` (and about `bytes`).
    func drain(_ spool: HealthSampleSpool, size: Int, bytes: Int = .max) throws -> [[StateRecord]] {
        guard var sorted = try spool.sorted() else { return [] }
        var chunks: [[StateRecord]] = []
        while case let chunk = try sorted.next(size, bytes: bytes), !chunk.isEmpty { chunks.append(chunk) }
        return chunks
    }

    @Test func chunksInTimeOrderAreStoredAsTheyCome() throws {
        let spool = HealthSampleSpool()
        // A day may go on into the next chunk, across kinds interleaved.
        for days in [[1, 2, 3], [3, 4, 5], [5, 6, 7], [8, 9]] { #expect(try !spool.take(chunk(days))) }
    }

    @Test func chunksThatGoBackAreSpooledAndComeOutSorted() throws {
        let spool = HealthSampleSpool()
        #expect(try !spool.take(chunk([1, 5])))
        #expect(try !spool.take(chunk([6, 4, 7, 8])), "a quarter going back is stored as it comes")
        #expect(try spool.take(chunk([9, 1, 2], value: 1)), "two thirds going back")
        #expect(try spool.take(chunk([10])), "once spooling, every later chunk is spooled too")
        #expect(try spool.take([record(1, 2, 4, value: 2)]))
        var out: [StateRecord] = []
        var sizes: [Int] = []
        for chunk in try drain(spool, size: 25) { out += chunk; sizes.append(chunk.count) }
        #expect(out.count == 121 && sizes.allSatisfy { $0 <= 25 })
        let order = out.map { ($0.shelf, $0.group, $0.key) }
        #expect(zip(order, order.dropFirst()).allSatisfy { a, b in (a.0, a.1) < (b.0, b.1) || ((a.0, a.1) == (b.0, b.1) && !b.2.lexicographicallyPrecedes(a.2)) })
        let twice = out.filter { $0.group == "2024-06-01" && $0.shelf == 2 && $0.key == [4] }
        #expect(twice.map(\.value) == [[1], [2]], "a key read twice comes in the order it was read")
    }

    @Test func chunksEndPastTheirBytesWhereAKeyEnds() throws {
        let spool = HealthSampleSpool()
        #expect(try !spool.take(chunk([5])))
        let big = (1...4).flatMap { day in (0..<3).map { key in record(day, 1, UInt8(key), value: 9) } }
            .map { r in var r = r; r.value = Array(repeating: 9, count: 100); return r }
        #expect(try spool.take(big + [big[0], big[0]]))
        let chunks = try drain(spool, size: 100, bytes: 150)
        #expect(chunks.flatMap { $0 }.count == 14)
        #expect(chunks.first?.count == 3, "the key read three times stays in one chunk, past the bytes")
        #expect(chunks.dropFirst().map(\.count) == [2, 2, 2, 2, 2, 1])
    }

    @Test func aRecordsPackedSizeIsWhatItTakes() {
        for (group, key, value) in [("", 0, 0), ("2024-06-01", 1, 127), ("x", 128, 16_384), (String(repeating: "g", count: 200), 3, 1 << 21)] {
            let r = StateRecord(group: group, shelf: 1, key: Array(repeating: 1, count: key), value: Array(repeating: 2, count: value))
            var bytes: [UInt8] = []
            PackedRecord.append(r, to: &bytes)
            #expect(PackedRecord.size(r) == bytes.count)
        }
    }

    @Test func runsSpilledToATemporaryFileMergeInKeyOrder() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("spool-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // Runs of a few records, merged two at a time: several levels of merges.
        let spool = HealthSampleSpool(runBytes: 300, fanIn: 2, folder: folder)
        var taken = chunk([9, 5, 1])
        #expect(try spool.take(taken))
        for i in 1..<40 {
            var records = (0..<25).map { _ in record(Int.random(in: 1...28), UInt8.random(in: 1...3), UInt8.random(in: 0...20), value: UInt8(i)) }
            if i == 7 { records.append(StateRecord(group: "2024-06-02", shelf: 2, key: [9], value: Array(repeating: 7, count: 300_000))) }
            #expect(try spool.take(records))
            taken += records
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty, "the temporary file is unlinked as soon as it is made")
        let out = try drain(spool, size: 64).flatMap { $0 }
        let expected = taken.enumerated().sorted { a, b in
            let x = (a.element.shelf, a.element.group), y = (b.element.shelf, b.element.group)
            if x != y { return x < y }
            if a.element.key != b.element.key { return a.element.key.lexicographicallyPrecedes(b.element.key) }
            return a.offset < b.offset
        }.map(\.element)
        #expect(out == expected, "sorted by shelf, group and key; a key read twice in the order read")
    }

    @Test func aTemporaryFileThatCannotBeMadeFailsTransientlyAndWhatWasTakenIsStillHandedOn() throws {
        let spool = HealthSampleSpool(runBytes: 100, fanIn: 2, folder: "/nonexistent-\(UUID().uuidString)")
        var failure: FileReadError?
        do { _ = try spool.take(chunk([9, 5, 1])) } catch { failure = error }
        #expect(failure?.transient == true, "the export is read again on the next scan: \(String(describing: failure))")
        let out = try drain(spool, size: 100).flatMap { $0 }
        #expect(!out.isEmpty && out.map(\.shelf) == out.map(\.shelf).sorted(), "the records packed before it, sorted")
    }
}
