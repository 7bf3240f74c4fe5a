import Foundation
import IngestCore
import Testing

/// geoclue 2.6 dates NMEA times on today's UTC date (a time ahead of the clock is taken as
/// yesterday's, which fails on the 1st of a month): the replayed day must fit since midnight then.
func dayFits(minutes: Double, endsAgo: Double) -> Bool {
    let now = Date()
    var utc = Calendar(identifier: .gregorian)
    utc.timeZone = TimeZone(identifier: "UTC")!
    let sinceMidnight = now.timeIntervalSince(utc.startOfDay(for: now))
    return utc.component(.day, from: now) != 1 || sinceMidnight > minutes * 60 + endsAgo + 60
}

@Suite("geoclue: visits and trips from the real geoclue daemon", .serialized)
struct GeoClueTests {
    /// home 30 min, walk 15, café 40, drive 20, office 20; one fix every 5 s, ending 20 min ago.
    static let minutes = 125.0, every = 5.0, endsAgo = 1200.0

    @Test(.enabled(if: dayFits(minutes: minutes, endsAgo: endsAgo), "geoclue cannot date this day's replay before midnight UTC on the 1st"))
    func aDayThroughGeoclueGivesTheScriptedVisitsAndTripsAcrossAGeoclueRestart() throws {
        let world = try GeoClueWorld()
        let day = try world.writeDay(minutes: Self.minutes, every: Self.every, endsAgo: Self.endsAgo)
        let perMinute = Int(60 / Self.every)
        // Held 20 minutes into the café stay, which is then open at the node.
        try world.startReplay(holdAt: (30 + 15 + 20) * perMinute)
        try world.startGeoclue()
        try world.startLocationAgent()
        try world.startWatch()
        guard try eventually(60, { try world.node.items("location").count == 2 && world.replayStatus.contains { $0.hasPrefix("held") } }) else {
            Issue.record("the morning did not arrive; watch said: \(world.watchSaid)")
            return
        }

        // geoclue restarts mid-stay; the agent makes a new client, geoclue connects to the replay again.
        world.killGeoclue()
        try world.startGeoclue()
        world.resume()
        #expect(eventually(60) { world.replayStatus.filter { $0 == "connected" }.count == 2 }, "no new client within a minute: \(world.watchSaid)")
        let lastFix = try #require(day.visits.last).arrival + 20 * 60 - Self.every
        #expect(try eventually(60) { try world.node.items("location").count == 3 && world.node.items("motion").count == 2 }, "\(world.watchSaid)")
        #expect(try eventually(30) { try journaledFixTimes(world.agent, adapter: "geo").last == lastFix }, "the agent read the whole day: \((try? journaledFixTimes(world.agent, adapter: "geo").suffix(3)) ?? []), not \(lastFix)")
        try day.check(world.node, officeOpen: true, fixInterval: Self.every)
        let cafe = try world.node.items("location").filter { ExpectedDay.time($0["item"]?["arrival"]).map { abs($0 - day.visits[1].arrival) < 120 } ?? false }
        #expect(cafe.count == 1 && cafe.first?["item"]?["departure"] != .null, "the café visit went on across the restart, one visit under one key")
        #expect(try journaledFixTimes(world.agent, adapter: "geo").count == Int(Self.minutes) * perMinute, "every fix of the day, once: \((try? journaledFixTimes(world.agent, adapter: "geo").count) ?? -1)")

        // watch stops cleanly; a timer run then closes the office visit, whose last fix is 20 min old.
        let stopped = world.stopWatch()
        #expect(stopped.status == 0, "\(stopped.log)")
        let run = try world.agent.run(["run"])
        #expect(run.status == 0, "\(run.stderr)")
        let office = try world.node.items("location").first { ExpectedDay.time($0["item"]?["arrival"]).map { abs($0 - day.visits[2].arrival) < 120 } ?? false }
        #expect(ExpectedDay.time(office?["item"]?["departure"]) == lastFix, "the stale office visit closes at its last fix")
    }

    @Test(.enabled(if: dayFits(minutes: 10, endsAgo: 60), "geoclue cannot date this day's replay before midnight UTC on the 1st"))
    func withoutAnAgentWatchSaysSoOnceStaysUpAndFollowsOnceOneRegisters() throws {
        let world = try GeoClueWorld()
        _ = try world.writeDay(minutes: 10, every: Self.every, endsAgo: 60)
        try world.startReplay()
        try world.startGeoclue()
        try world.startWatch()
        let hint = "a location agent for this user runs (GNOME Shell, Phosh, or /usr/libexec/geoclue-2.0/demos/agent"
        #expect(eventually(30) { world.occurrences(of: hint) == 1 }, "no line about the missing agent: \(world.watchSaid)")
        #expect(kill(try #require(world.watch).pid, 0) == 0, "watch is still running")

        // The request geoclue held back is served once an agent registers: the home stay opens.
        try world.startLocationAgent()
        #expect(try eventually(30) { try world.node.items("location").count == 1 }, "\(world.watchSaid)")
        let stopped = world.stopWatch()
        #expect(stopped.status == 0)
        #expect(world.occurrences(of: hint) == 1, "said once: \(stopped.log)")
    }

    @Test func aRefusalByGeocluesConfigurationIsOneLineNamingTheFix() throws {
        let world = try GeoClueWorld(geoclueConfig: GeoClueWorld.geoclueConfig(app: "allowed=false\nsystem=false\nusers="))
        _ = try world.writeDay(minutes: 10, every: Self.every, endsAgo: 60)
        try world.startReplay()
        try world.startGeoclue()
        try world.startLocationAgent()
        try world.startWatch()
        let fix = "add to /etc/geoclue/geoclue.conf a section [hearthloom-ingest] with allowed=true, system=true, users="
        #expect(eventually(20) { world.occurrences(of: fix) == 1 }, "\(world.watchSaid)")
        #expect(world.watchSaid.contains("disallowed by configuration"), "geoclue's own reason is quoted: \(world.watchSaid)")
        let stopped = world.stopWatch()
        #expect(stopped.status == 0)
        #expect(world.occurrences(of: fix) == 1, "said once: \(stopped.log)")
    }
}
