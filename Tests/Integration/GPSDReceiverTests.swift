import Foundation
import IngestCore
import Testing

/// Captures from real receivers (gpsd's own regression logs, fixtures/gpsd/receivers/README.md)
/// replayed through a real gpsd, one gpsfake after another, to one `watch`.
@Suite("gpsd: real receivers, one after another", .serialized)
struct GPSDReceiverTests {
    /// One capture, as gpsd 3.22 reports it: the fixes the agent keeps and the first and last of them.
    struct Capture {
        var file: String
        var kept: Int
        /// The first and last kept fix's time.
        var span: ClosedRange<Double>?
        var first: Double? { span?.lowerBound }
        var last: Double? { span?.upperBound }
    }

    /// In time order, as one receiver's life would be: the agent drops a fix that is not newer
    /// than the last one it kept, so a capture from an earlier year replayed later would be dropped.
    static let captures: [Capture] = [
        Capture(file: "greis-binary.log", kept: 44, span: 1_513_395_299.5...1_513_395_310.25),          // Javad GREIS, 4 Hz
        Capture(file: "ublox-zed-f9p_hpg1.11.log.gz", kept: 654, span: 1_555_031_944...1_555_032_597), // u-blox ZED-F9P, 10.9 min still
        Capture(file: "sirfstarv.log", kept: 52, span: 1_556_072_235...1_556_072_293),                 // SiRFstarV: 53 fixes in 1999, 1 over MaxError
        Capture(file: "trimble-smt-360.log", kept: 59, span: 1_571_769_491...1_571_769_549),           // Trimble TSIP
        Capture(file: "garmin18x-bin.log", kept: 29, span: 1_576_442_817...1_576_442_845),             // Garmin binary
        Capture(file: "nmea-rtk.log", kept: 122, span: 1_584_538_099.6...1_584_538_741.5),             // Trimble NMEA, RTK
        Capture(file: "ublox-lea-5h.log", kept: 0, span: nil),                                   // u-blox NMEA: all 19 in 2030
    ]
    /// ublox-lea-5h.log was recorded on 2010-08-23; gpsd dates its fixes 1024 weeks later, from 2030-04-06T08:37:23Z.
    static let rolledOverFrom = 1_901_695_043.0

    let port = 26_000 + Int(getpid() % 5000)

    func time(_ value: JSONValue?) -> Double? {
        value?.stringValue.flatMap { ISO8601DateFormatter().date(from: $0)?.timeIntervalSince1970 }
    }

    /// The capture as gpsfake reads it: the big one is kept gzipped in the repo.
    func unpacked(_ capture: Capture, into dir: String) throws -> String {
        let path = repoRoot + "/fixtures/gpsd/receivers/" + capture.file
        guard capture.file.hasSuffix(".gz") else { return path }
        let out = dir + "/" + capture.file.dropLast(3)
        let gunzip = try runProcess("/bin/sh", ["-c", "gzip -dc \"$0\" > \"$1\"", path, out])
        #expect(gunzip.status == 0, "\(gunzip.stderr)")
        return out
    }

    /// What the agent said it dropped, summed over its `dropped N fixes: …` lines.
    func dropped(in log: String) -> [String: Int] {
        var counts: [String: Int] = [:]
        for line in log.split(separator: "\n") {
            guard let range = line.range(of: "dropped ") else { continue }
            for part in line[range.upperBound...].split(separator: ":", maxSplits: 1).last?.split(separator: ",") ?? [] {
                let words = part.trimmingCharacters(in: .whitespaces).split(separator: " ", maxSplits: 1)
                if words.count == 2, let n = Int(words[0]) { counts[String(words[1]), default: 0] += n }
            }
        }
        return counts
    }

    @Test func eachReceiverIsFollowedTheLongStillOneIsAVisitAndRolledOverFixesAreDroppedAndCounted() throws {
        try #require(Date().timeIntervalSince1970 + 86_400 < GPSDReceiverTests.rolledOverFrom,
                     "ublox-lea-5h.log's fixes are no longer in the future: pick a capture gpsd dates later")
        let node = try TestNode()
        let agent = try AgentSandbox()
        try agent.usePairedNode(node.url, token: node.token)
        // KeepFixes: the captures span 2017–2020, and the journal is what shows each one was kept.
        try agent.write("adapters.d/gps.conf", "[Adapter]\nType=gpsd\nHost=127.0.0.1\nPort=\(port)\nNoDataTimeout=5s\nKeepFixes=100000d\n")
        let watchLog = agent.root + "/watch.log"
        let watch = try childLoggingStderr(to: watchLog, agentBinary, ["watch", "--send-every", "1s"], env: agent.env)
        var watching = true
        defer { if watching { watch.signal(SIGKILL); _ = watch.wait() } }
        func said(_ text: String) -> Int { ((try? String(contentsOfFile: watchLog, encoding: .utf8)) ?? "").components(separatedBy: text).count - 1 }

        for (n, capture) in GPSDReceiverTests.captures.enumerated() {
            let gps = try GPSFake(log: try unpacked(capture, into: agent.root), port: port)
            try gps.feed()
            #expect(gps.waitUntilFed(), "gpsfake fed all of \(capture.file)")
            // Reports reach the agent in order, so once it has seen this gpsd go, it has read all it sent.
            #expect(eventually(30) { said("gps: gpsd closed the connection") == n + 1 }, "the agent noticed the end of \(capture.file)")
        }
        let kept = try journaledFixTimes(agent)
        for capture in GPSDReceiverTests.captures {
            let inside = capture.span.map { span in kept.filter { span.lowerBound - 0.01...span.upperBound + 0.01 ~= $0 } } ?? []
            #expect(inside.count == capture.kept, "fixes kept from \(capture.file)")
        }
        #expect(kept.count == GPSDReceiverTests.captures.map(\.kept).reduce(0, +), "no fix from anywhere else, none twice")
        #expect(try eventually(30) { try node.items("location").count == 2 && node.items("motion").count == 1 }, "visits and the trip between them at the node")

        watch.signal(SIGTERM)
        #expect(watch.wait().status == 0)
        watching = false
        try checkPlaces(node)
        let stderr = (try? String(contentsOfFile: watchLog, encoding: .utf8)) ?? ""
        #expect(dropped(in: stderr) == ["time before 2015 or in the future (GPS week rollover?)": 53 + 19, "error estimate over MaxError": 1],
                "SiRFstarV's 1999 fixes and its one over MaxError, the LEA-5H's 2030 ones: \(stderr)")
    }

    /// The node's visits and trips: the ZED-F9P's 10.9 still minutes are one closed visit of all its
    /// fixes, the NMEA RTK capture (two bursts 10.5 min apart, within MaxGap) an open one, and one
    /// trip between them (the GREIS capture's fixes before the first visit make no trip).
    func checkPlaces(_ node: TestNode) throws {
        let visits = try node.items("location").compactMap { $0["item"] }.sorted { (time($0["arrival"]) ?? 0) < (time($1["arrival"]) ?? 0) }
        let trips = try node.items("motion").compactMap { $0["item"] }.sorted { (time($0["start"]) ?? 0) < (time($1["start"]) ?? 0) }
        try #require(visits.count == 2 && trips.count == 1, "visits \(visits), trips \(trips)")
        let zed = GPSDReceiverTests.captures[1], rtk = GPSDReceiverTests.captures[5]
        #expect(time(visits[0]["arrival"]) == zed.first && time(visits[0]["departure"]) == zed.last, "the still ZED-F9P: \(visits[0])")
        #expect(visits[0]["fixes"]?.intValue == 654, "every fix of the 10.9 min: \(visits[0])")
        // The capture's header: 45.877591500S 170.500124833E (Dunedin).
        #expect(abs((visits[0]["lat"]?.doubleValue ?? 0) + 45.8775915) < 0.0001 && abs((visits[0]["lon"]?.doubleValue ?? 0) - 170.500125) < 0.0001)
        #expect(time(visits[1]["arrival"]) == rtk.first.map { $0.rounded() } && visits[1]["departure"] == .null, "the RTK capture: \(visits[1])")
        #expect(time(trips[0]["start"]) == zed.last && time(trips[0]["end"]) == rtk.first.map { $0.rounded() }, "\(trips[0])")
        let now = Date().timeIntervalSince1970
        for item in visits + trips {
            for key in ["arrival", "departure", "start", "end"] { #expect((time(item[key]) ?? 0) < now, "nothing dated after today: \(item)") }
        }
    }
}
