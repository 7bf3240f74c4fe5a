import Foundation
import IngestCore
import Testing

/// Quiet phones (BridgeGap): a night at home with a fix every 15 min or so, and one with a 10-hour
/// dead battery, are one visit each, then the drive and the office, through every place adapter:
/// a real gpsd fed by gpsfake, the real geoclue daemon, and location-history reading a
/// Records.json and a GPX. The expected visits and trips come from the scripts
/// (fixtures/gpsd/make-day.py `--script`, fixtures/location-history/make-fixtures.py).
@Suite("quiet phones: a stay goes on across a silence at the same place", .serialized)
struct QuietPhoneTests {
    static let scripts = ["sparse-night", "dead-battery"]
    /// The scripts' lengths: 9 h sparse + 20 min drive + 40 min office; 30 min + 10 h + 30 min + 60 min.
    static let minutes = ["sparse-night": 600.0, "dead-battery": 720.0]

    func makeDay(_ script: String, into dir: String, every: Double = 1, start: Double? = nil) throws -> ExpectedDay {
        let r = try runProcess("/usr/bin/python3", [repoRoot + "/fixtures/gpsd/make-day.py", "--out", dir, "--script", script,
                                                   "--every", String(every), "--name", "day"] + (start.map { ["--start", String($0)] } ?? []))
        try #require(r.status == 0, "make-day.py: \(r.stderr)")
        return try ExpectedDay(contentsOf: dir + "/day.expected.json")
    }

    @Test(arguments: scripts)
    func gpsdGivesOneVisitForTheNightAtHome(script: String) throws {
        let node = try TestNode()
        let agent = try AgentSandbox()
        let port = 36_000 + Int(getpid() % 5000)
        try agent.usePairedNode(node.url, token: node.token)
        try agent.write("adapters.d/gps.conf", "[Adapter]\nType=gpsd\nHost=127.0.0.1\nPort=\(port)\nNoDataTimeout=5s\n")
        let day = try makeDay(script, into: agent.root)
        let gps = try GPSFake(log: agent.root + "/day.nmea", port: port)
        let watch = try Child(agentBinary, ["watch", "--send-every", "1s"], env: agent.env)
        defer { watch.signal(SIGKILL); _ = watch.wait() }
        try gps.feed()
        let lastFix = try #require(day.visits.last).arrival + 2400 - 1
        guard try eventually(120, { try node.items("location").count == 2 && node.items("motion").count == 1 }),
              try eventually(60, { try journaledFixTimes(agent).last == lastFix }) else {
            Issue.record("the day did not arrive: \(try node.items("location"))")
            return
        }
        try day.check(node, officeOpen: true)
    }

    /// The machine is off for the night (the agent killed, gpsd gone), a timer `run` in the
    /// morning closes the stale visit, then gpsd and `watch` come back at home: the restored
    /// tracker carries the stay on from the journal, under its key, with no trip.
    @Test func gpsdCarriesTheStayAcrossANightWithTheMachineOff() throws {
        let node = try TestNode()
        let agent = try AgentSandbox()
        let port = 36_000 + Int(getpid() % 5000)
        try agent.usePairedNode(node.url, token: node.token)
        try agent.write("adapters.d/gps.conf", "[Adapter]\nType=gpsd\nHost=127.0.0.1\nPort=\(port)\nNoDataTimeout=5s\n")
        let day = try makeDay("dead-battery", into: agent.root)
        // NMEA lines end in CRLF, which Swift's String counts as one Character; three sentences a second.
        let lines = try String(contentsOfFile: agent.root + "/day.nmea", encoding: .utf8).split(separator: "\r\n")
        let evening = 3 * (day.warmup_s + 1800)
        try (lines[..<evening].joined(separator: "\r\n") + "\r\n").write(toFile: agent.root + "/evening.nmea", atomically: true, encoding: .utf8)
        try (lines[evening...].joined(separator: "\r\n") + "\r\n").write(toFile: agent.root + "/morning.nmea", atomically: true, encoding: .utf8)
        let home = try #require(day.visits.first)

        var gps: GPSFake? = try GPSFake(log: agent.root + "/evening.nmea", port: port)
        var watch = try Child(agentBinary, ["watch", "--send-every", "1s"], env: agent.env)
        try gps?.feed()
        #expect(try eventually(120) { try journaledFixTimes(agent).last == home.arrival + 1799 }, "the evening was journaled")
        watch.signal(SIGKILL); _ = watch.wait()
        gps?.kill(); gps = nil
        let run = try agent.run(["run"])
        #expect(run.status == 0, "\(run.stderr)")
        let closed = try node.items("location")
        #expect(closed.count == 1 && ExpectedDay.time(closed.first?["item"]?["departure"]) == home.arrival + 1799, "the stale close: \(closed)")

        watch = try Child(agentBinary, ["watch", "--send-every", "1s"], env: agent.env)
        defer { watch.signal(SIGKILL); _ = watch.wait() }
        gps = try GPSFake(log: agent.root + "/morning.nmea", port: port)
        try gps?.feed()
        let lastFix = try #require(day.visits.last).arrival + 2400 - 1
        #expect(try eventually(120) { try node.items("location").count == 2 && node.items("motion").count == 1 }, "the morning at home, the drive, the office")
        #expect(try eventually(60) { try journaledFixTimes(agent).last == lastFix }, "the agent read the whole morning")
        try day.check(node, officeOpen: true)
        #expect(try node.items("location").first?["key"] == closed.first?["key"], "the night's visit went on under its key")
    }

    @Test(.enabled(if: dayFits(minutes: 720, endsAgo: 1200), "geoclue cannot date this day's replay before midnight UTC on the 1st"),
          arguments: scripts)
    func geoclueGivesOneVisitForTheNightAtHome(script: String) throws {
        let world = try GeoClueWorld()
        let every = 5.0
        let day = try world.writeDay(minutes: Self.minutes[script]!, every: every, endsAgo: 1200, script: script)
        try world.startReplay()
        try world.startGeoclue()
        try world.startLocationAgent()
        try world.startWatch()
        let lastFix = try #require(day.visits.last).arrival + 2400 - every
        guard try eventually(120, { try world.node.items("location").count == 2 && world.node.items("motion").count == 1 }),
              try eventually(60, { try journaledFixTimes(world.agent, adapter: "geo").last == lastFix }) else {
            Issue.record("the day did not arrive: \(world.watchSaid)")
            return
        }
        try day.check(world.node, officeOpen: true, fixInterval: every)
    }

    /// A Records.json whose night has a point every 15 min or so; a GPX with 10 h without a point.
    @Test(arguments: zip(scripts, ["sparse-night-records.json", "dead-battery.gpx"]))
    func locationHistoryGivesOneVisitForTheNightAtHome(script: String, file: String) throws {
        let rig = try LocationRig()
        try rig.copy(file)
        try rig.run()
        let day = try ExpectedDay(contentsOf: LocationHistoryTests.fixtures + "/\(script).expected.json")
        try day.check(rig.node, officeOpen: false, fixInterval: 30)
        #expect(try rig.items("location").last?["departure"] != .null, "the office, its points long past, is closed")
    }
}
