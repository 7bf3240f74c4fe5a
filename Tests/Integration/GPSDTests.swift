import Foundation
import IngestCore
import Testing

@Suite("gpsd: visits and trips from a real gpsd", .serialized)
struct GPSDTests {
    let log = repoRoot + "/fixtures/gpsd/day.nmea"
    let expected: ExpectedDay
    let port = 21_000 + Int(getpid() % 5000)

    init() throws {
        expected = try ExpectedDay(contentsOf: repoRoot + "/fixtures/gpsd/day.expected.json")
    }

    func time(_ value: JSONValue?) -> Double? { ExpectedDay.time(value) }

    func checkDay(_ node: TestNode, officeOpen: Bool) throws { try expected.check(node, officeOpen: officeOpen) }

    func sandbox(_ node: TestNode) throws -> AgentSandbox {
        let agent = try AgentSandbox()
        try agent.usePairedNode(node.url, token: node.token)
        try agent.write("adapters.d/gps.conf", "[Adapter]\nType=gpsd\nHost=127.0.0.1\nPort=\(port)\nNoDataTimeout=5s\n")
        return agent
    }

    /// The day's last fix: the office stay runs 3 h, one fix a second.
    var lastFix: Double { expected.visits[2].arrival + 10_800 - 1 }

    @Test func aReplayedDayGivesTheScriptedVisitsAndTripsAndRunClosesTheStaleOne() throws {
        let node = try TestNode()
        let agent = try sandbox(node)
        let gps = try GPSFake(log: log, port: port)
        let watch = try Child(agentBinary, ["watch", "--send-every", "1s"], env: agent.env)
        try gps.feed()
        guard try eventually(120, { try node.items("location").count == 3 && node.items("motion").count == 2 }),
              try eventually(60, { try journaledFixTimes(agent).last == lastFix }) else {
            watch.signal(SIGKILL)
            Issue.record("the day did not arrive; watch said: \(watch.wait().stderr)")
            return
        }
        try checkDay(node, officeOpen: true)

        // watch stops cleanly; a timer run then closes the office visit: its last fix is from 2024.
        watch.signal(SIGTERM)
        #expect(watch.wait().status == 0)
        let run = try agent.run(["run"])
        #expect(run.status == 0, "\(run.stderr)")
        let office = try node.items("location").first { time($0["item"]?["arrival"]).map { abs($0 - expected.visits[2].arrival) < 120 } ?? false }
        #expect(time(office?["item"]?["departure"]) == lastFix, "the stale office visit closes at its last fix")
        #expect(try node.items("location").count == 3, "closing re-sends the same key")
    }

    @Test func gpsdAndTheAgentRestartMidDayAndNothingIsLostOrDoubled() throws {
        let node = try TestNode()
        let agent = try sandbox(node)
        var gps: GPSFake? = try GPSFake(log: log, port: port)
        var watch = try Child(agentBinary, ["watch", "--send-every", "1s"], env: agent.env)
        try gps?.feed()
        // Once the café stay is open at the node, kill gpsd and kill -9 the agent.
        #expect(try eventually(120) { try node.items("location").count >= 2 })
        gps?.kill(); gps = nil
        watch.signal(SIGKILL); _ = watch.wait()
        #expect(try node.items("location").count == 2)

        // gpsd comes back replaying from the middle of the walk (fixes the agent had are dropped as not newer).
        // NMEA lines end in CRLF, which Swift's String counts as one Character.
        let lines = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\r\n")
        let rest = agent.root + "/rest.nmea"
        // Three sentences a second: the warm-up, then 2400 s into the day (the middle of the walk).
        try (lines[(3 * (expected.warmup_s + 2400))...].joined(separator: "\r\n") + "\r\n").write(toFile: rest, atomically: true, encoding: .utf8)
        watch = try Child(agentBinary, ["watch", "--send-every", "1s"], env: agent.env)
        defer { watch.signal(SIGKILL); _ = watch.wait() }
        gps = try GPSFake(log: rest, port: port)            // held until the restarted agent watches
        try gps?.feed()
        #expect(try eventually(120) { try node.items("location").count == 3 && node.items("motion").count == 2 }, "the day did not finish")
        #expect(try eventually(60) { try journaledFixTimes(agent).last == lastFix }, "the agent read the whole rest of the day")
        try checkDay(node, officeOpen: true)
        let cafe = try node.items("location").filter { time($0["item"]?["arrival"]).map { abs($0 - expected.visits[1].arrival) < 120 } ?? false }
        #expect(cafe.count == 1, "the café visit opened before the restart and closed after it under one key")
    }

    @Test func garbageAnotherProtocolAndBadFixesAreDroppedWithCountedWarnings() throws {
        let node = try TestNode()
        let agent = try AgentSandbox()
        try agent.usePairedNode(node.url, token: node.token)
        let t0 = 1_717_225_200.0
        func tpv(_ t: Double, lat: Double? = 52.52, lon: Double = 13.405, mode: Int = 3) -> String {
            let format = ISO8601DateFormatter()
            format.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
            let time = format.string(from: Date(timeIntervalSince1970: t))
            return #"{"class":"TPV","device":"fake","mode":\#(mode),"time":"\#(time)","# + (lat.map { #""lat":\#($0),"# } ?? "")
                + #""lon":\#(lon),"altMSL":34.0,"eph":5.0,"speed":0.0}"#
        }
        var good: [String] = []
        for i in 0..<400 {
            good.append(tpv(t0 + Double(i)))
            switch i {
            case 100: good.append(tpv(315_964_810))                       // 1980: a week-number rollover
            case 150: good.append(tpv(4_102_444_800))                     // 2100
            case 200: good.append(tpv(t0 + 200.5, lat: 57.0))             // 500 km in half a second
            case 250: good.append(tpv(t0 + 250.5, lat: nil))              // a fix without a latitude
            case 300: good.append(tpv(t0 + 300.5, mode: 1))               // no fix: not a position at all
            default: break
            }
        }
        let dir = agent.root
        try "this is not JSON\n{\"class\":\"TPV\",\"mode\":3,\"lat\":\n\u{01}\u{02}binary\n".write(toFile: dir + "/bad.txt", atomically: true, encoding: .utf8)
        try (good.joined(separator: "\n") + "\n").write(toFile: dir + "/good.txt", atomically: true, encoding: .utf8)
        let fake = try Child("/usr/bin/env", ["python3", repoRoot + "/tools/fakegpsd/fakegpsd.py", "--port-file", dir + "/port", "--proto", "4.0",
                                              "--first", dir + "/bad.txt", "--then", dir + "/good.txt"], captureOutput: false)
        defer { fake.signal(SIGKILL); _ = fake.wait() }
        #expect(eventually(10) { FileManager.default.fileExists(atPath: dir + "/port") })
        let port = try String(contentsOfFile: dir + "/port", encoding: .utf8)
        try agent.write("adapters.d/gps.conf", "[Adapter]\nType=gpsd\nHost=127.0.0.1\nPort=\(port)\n")

        let watch = try Child(agentBinary, ["watch", "--send-every", "1s"], env: agent.env)
        #expect(try eventually(60) { try node.items("location").count == 1 }, "the good fixes after the garbage make a visit")
        watch.signal(SIGTERM)
        let result = watch.wait()
        #expect(result.status == 0, "\(result.stderr)")
        let visit = try #require(try node.items("location").first?["item"])
        #expect(visit["fixes"]?.intValue == 301, "the first 5 min of the stay, none of the bad fixes: \(visit)")
        #expect(result.stderr.contains("speaks protocol 4.0"), "\(result.stderr)")
        #expect(result.stderr.contains("dropped 4 fixes: 1 no valid position, 2 time before 2015 or in the future (GPS week rollover?), 1 moved faster than MaxSpeed"),
                "\(result.stderr)")
    }
}
