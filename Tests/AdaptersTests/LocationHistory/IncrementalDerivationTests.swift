import Foundation
import IngestCore
import Testing
@testable import Adapters

/// A new export derives only the days it touches and their surroundings, and what the node ends
/// with is what one import of everything gives: the same points, stated visits and region
/// transitions split into several exports at random, added one run at a time in random order.
/// Seeded: a failure names its seed, and the seed reproduces it.
struct IncrementalDerivationTests {
    /// The node's items after `sinks`' commits in order: key → version and fields; tombstones remove.
    static func node(_ sinks: [CollectingSink]) -> [String: String] {
        var items: [String: String] = [:]
        for item in sinks.flatMap(\.items) {
            if item.deleted { items[item.key] = nil; continue }
            items[item.key] = (item.version ?? "") + " " + String(decoding: JSONValue.object(item.fields).encoded, as: UTF8.self)
        }
        return items
    }

    static func folder() throws -> String {
        let path = NSTemporaryDirectory() + "history-incremental-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    static func adapter(_ folder: String) throws -> LocationHistoryAdapter {
        let file = folder + ".conf"
        try "[Adapter]\nType=location-history\nPath=\(folder)\n".write(toFile: file, atomically: true, encoding: .utf8)
        return try LocationHistoryAdapter(config: AdapterRegistry([LocationHistoryAdapter.self]).loadConfig(file: file))
    }

    /// One run over `folder` after `last` (a fresh store when nil).
    static func run(_ folder: String, after last: CollectingSink?) async throws -> CollectingSink {
        let sink = last?.next() ?? CollectingSink()
        try await adapter(folder).scan(since: sink.anchor, into: sink)
        return sink
    }

    /// The items of one import of the whole script.
    static func whole(_ script: HistoryExportsScript) async throws -> [String: String] {
        let folder = try folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try script.write(to: folder, name: "all")
        return node([try await run(folder, after: nil)])
    }

    func check(seed: UInt64, byTime: Bool) async throws {
        var rng = SplitMix64(seed)
        let script = HistoryExportsScript(seed: seed)
        let expected = try await IncrementalDerivationTests.whole(script)
        #expect(expected.keys.filter { $0.hasPrefix("visit:") }.count >= 25, "the script makes visits (seed \(seed))")
        var parts = script.split(into: 2 + rng.below(4), byTime: byTime, &rng)
        parts.shuffle(using: &rng)
        let folder = try IncrementalDerivationTests.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var sinks: [CollectingSink] = []
        for (n, part) in parts.enumerated() {
            try part.write(to: folder, name: "part\(n)")
            sinks.append(try await IncrementalDerivationTests.run(folder, after: sinks.last))
        }
        let got = IncrementalDerivationTests.node(sinks)
        #expect(got == expected, "seed \(seed), \(parts.count) exports\(byTime ? " cut by time" : ""): differing \(Set(expected.keys).union(got.keys).filter { expected[$0] != got[$0] }.sorted())")
    }

    @Test(arguments: [1, 2, 3, 4, 5, 6] as [UInt64])
    func exportsAddedOneByOneEndAsOneImport(seed: UInt64) async throws {
        try await check(seed: seed, byTime: false)
    }

    @Test(arguments: [11, 12, 13, 14, 15, 16] as [UInt64])
    func monthlyStyleExportsEndAsOneImport(seed: UInt64) async throws {
        try await check(seed: seed, byTime: true)
    }

    /// A day added after the rest re-derives a window around it: the days before the window
    /// queue nothing, and an unchanged scan queues nothing at all.
    @Test func aNewDayQueuesOnlyItsNeighbourhood() async throws {
        var script = HistoryExportsScript(seed: 7)
        let cut = HistoryExportsScript.day0 + 8 * 86_400
        var late = script
        late.points.removeAll { $0.time < cut }; late.stated = []; late.transitions.removeAll { $0.time < cut }
        script.points.removeAll { $0.time >= cut }; script.transitions.removeAll { $0.time >= cut }
        let folder = try IncrementalDerivationTests.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try script.write(to: folder, name: "early")
        let first = try await IncrementalDerivationTests.run(folder, after: nil)
        try late.write(to: folder, name: "late")
        let second = try await IncrementalDerivationTests.run(folder, after: first)
        let early = second.items.filter { ($0.fields["arrival"] ?? $0.fields["start"])?.stringValue ?? "" < "2024-06-05" }
        #expect(!second.items.isEmpty && early.isEmpty, "only days near the new one are sent again: \(early.map(\.key))")
        let third = try await IncrementalDerivationTests.run(folder, after: second)
        #expect(third.items.isEmpty)
        // Settled: a derivation now reads only around the last day (whose last visit waits on the clock).
        let windows = try HistoryWindows(places: try IncrementalDerivationTests.adapter(folder).places, records: third.records, now: Date().timeIntervalSince1970).derive().windows
        let lastDay = HistoryTime.number(ofDay: "2024-06-09")
        #expect(windows.count == 1 && windows.allSatisfy { $0.emit.lowerBound >= lastDay - 3 && $0.emit.lowerBound <= lastDay - 1 })
    }
}
