import Foundation
import IngestCore
import Testing

// The services change state when the test says so (their acks say the signals went out); the
// tests wait on what the node holds, never on sleeps. A span needs `MinSpan=` (1 s here) before
// it is sent, which the waits cover.
@Suite("focus adapter against private dbus-daemons, a test service and the test node", .serialized)
struct FocusTests {
    @Test func doNotDisturbAndLockSpansAreSentOpenThenClosed_activeChangedOnBothPathsCountsOnce() throws {
        let world = try FocusWorld()
        let service = try FocusService(on: world)
        try world.startWatch()
        try service.set("inhibited", true)
        let open = try world.waitForSpans("do-not-disturb", count: 1, lastOpen: true)
        #expect(open.first?["via"] == "kde")
        try service.set("inhibited", false)
        let closed = try world.waitForSpans("do-not-disturb", count: 1, lastOpen: false)
        #expect(closed.first?["key"] == open.first?["key"] && closed.first?["start"] == open.first?["start"], "one span, sent twice under one key")
        #expect(closed.first?["version"] != open.first?["version"])
        // ActiveChanged(true) then (false) on /ScreenSaver and on /org/freedesktop/ScreenSaver each.
        try service.set("active", true)
        try world.waitForSpans("locked", count: 1, lastOpen: true)
        try service.set("active", false)
        let locked = try world.waitForSpans("locked", count: 1, lastOpen: false)
        #expect(locked.first?["via"] == "screensaver")
        // xfce4-notifyd's do-not-disturb through xfconfd: a second do-not-disturb span.
        try service.set("dnd", true)
        try world.waitForSpans("do-not-disturb", count: 2, lastOpen: true)
        try service.set("dnd", false)
        #expect(try world.waitForSpans("do-not-disturb", count: 2, lastOpen: false).last?["via"] == "xfce")
        for span in try world.spans() {
            let (start, end) = (span["start"]?.stringValue ?? "", span["end"]?.stringValue ?? "")
            #expect(start < end, "a closed span ends after it starts: \(span)")
        }
        #expect(world.stopWatch().status == 0)
    }

    @Test func gnomeShowBannersOffIsDoNotDisturb_readFromDconfAtStartAndOnEachWrite() throws {
        let world = try FocusWorld(gnome: true)
        try world.gsettings("org.gnome.desktop.notifications", "show-banners", "false")
        try world.startWatch()
        let open = try world.waitForSpans("do-not-disturb", count: 1, lastOpen: true)
        #expect(open.first?["via"] == "gnome")
        try world.gsettings("org.gnome.desktop.notifications", "show-banners", "true")
        try world.waitForSpans("do-not-disturb", count: 1, lastOpen: false)
        try world.gsettings("org.gnome.desktop.notifications", "show-banners", "false")
        try world.waitForSpans("do-not-disturb", count: 2, lastOpen: true)
        // Another key in the same schema changes nothing.
        try world.gsettings("org.gnome.desktop.notifications", "show-in-lock-screen", "false")
        try world.gsettings("org.gnome.desktop.notifications", "show-banners", "true")
        try world.waitForSpans("do-not-disturb", count: 2, lastOpen: false)
        #expect(world.stopWatch().status == 0)
    }

    @Test func aLockAlreadyOnAtStartOpensASpan_logindIdleIsASpanOfItsOwn() throws {
        let world = try FocusWorld()
        let logind = try FocusService(on: world, system: true, on: ["locked"])
        let before = Date().addingTimeInterval(-1).timeIntervalSince1970
        try world.startWatch()
        let open = try world.waitForSpans("locked", count: 1, lastOpen: true)
        #expect(open.first?["via"] == "logind")
        let start = try #require(open.first?["start"]?.stringValue.flatMap { try? Date($0, strategy: .iso8601) })
        #expect(start.timeIntervalSince1970 >= before, "the span starts when watch found the lock on: \(start)")
        try logind.set("idle", true)
        try world.waitForSpans("idle", count: 1, lastOpen: true)
        try logind.set("idle", false)
        try logind.set("locked", false)
        try world.waitForSpans("idle", count: 1, lastOpen: false)
        try world.waitForSpans("locked", count: 1, lastOpen: false)
        #expect(world.stopWatch().status == 0)
    }

    @Test func flickerShorterThanMinSpanIsNotSent() throws {
        let world = try FocusWorld(minSpan: "3s")
        let service = try FocusService(on: world)
        try world.startWatch()
        try service.set("inhibited", true)
        try service.set("inhibited", false)                  // well under 3 s
        try service.set("active", true)
        try service.set("active", false)
        // A real span after them: once it is at the node, the flicker before it has been handled.
        try service.set("inhibited", true)
        let real = try world.waitForSpans("do-not-disturb", count: 1, lastOpen: true)
        try service.set("inhibited", false)
        #expect(try world.waitForSpans("do-not-disturb", count: 1, lastOpen: false).first?["key"] == real.first?["key"])
        #expect(try world.spans("locked").isEmpty, "the lock flicker is not sent")
        #expect(try world.spans().count == 1)
        #expect(world.stopWatch().status == 0)
    }

    @Test func aServiceThatRestartsWithDoNotDisturbOnIsTheSameSpan() throws {
        let world = try FocusWorld()
        try world.startWatch()
        // Not there when watch starts: it is read as soon as it appears, already on.
        let first = try FocusService(on: world, on: ["inhibited"])
        let open = try world.waitForSpans("do-not-disturb", count: 1, lastOpen: true)
        try first.quit()
        let second = try FocusService(on: world, on: ["inhibited"])
        // The new service is read at once; a second run of signals after it proves the agent saw it.
        try second.set("active", true)
        try world.waitForSpans("locked", count: 1, lastOpen: true)
        #expect(try world.spans("do-not-disturb").map { $0["key"] } == [open.first?["key"]], "no duplicate span")
        try second.set("inhibited", false)
        let closed = try world.waitForSpans("do-not-disturb", count: 1, lastOpen: false)
        #expect(closed.first?["key"] == open.first?["key"])
        #expect(world.stopWatch().status == 0)
    }

    @Test func theSessionBusComingBackIsReadAgain_aSpanStillOnIsNotDuplicated() throws {
        let world = try FocusWorld()
        var service = try FocusService(on: world, on: ["inhibited"])
        try world.startWatch()
        let open = try world.waitForSpans("do-not-disturb", count: 1, lastOpen: true)
        world.session.stop()                                   // the service goes down with it
        try world.session.start()
        service = try FocusService(on: world, on: ["inhibited", "active"])
        let watcher = try #require(world.watcher)
        #expect(eventually(20) { world.session.connectedPIDs().contains(watcher.pid) }, "watch did not come back to the bus")
        try world.waitForSpans("locked", count: 1, lastOpen: true, within: 20)    // read again at once
        #expect(try world.spans("do-not-disturb").map { $0["key"] } == [open.first?["key"]], "no duplicate span")
        try service.set("inhibited", false)
        try world.waitForSpans("do-not-disturb", count: 1, lastOpen: false)
        let result = world.stopWatch()
        #expect(result.status == 0 && result.stderr.contains("the session bus is back"), "\(result.stderr)")
    }

    @Test func anOpenSpanSurvivesARestartOfTheAgentAndOneThatEndedMeanwhileIsClosed() throws {
        let world = try FocusWorld()
        let service = try FocusService(on: world)
        try world.startWatch()
        try service.set("inhibited", true)
        let open = try world.waitForSpans("do-not-disturb", count: 1, lastOpen: true)
        #expect(world.stopWatch().status == 0)
        try world.startWatch()
        try service.set("inhibited", false)
        let closed = try world.waitForSpans("do-not-disturb", count: 1, lastOpen: false)
        #expect(closed.first?["key"] == open.first?["key"], "the span from before the restart, closed: \(closed)")
        // A lock that ends while no agent watches: closed when watch comes back, at the moment
        // the last watch stopped (when it was last known to be on).
        try service.set("active", true)
        try world.waitForSpans("locked", count: 1, lastOpen: true)
        #expect(world.stopWatch().status == 0)
        let stoppedBy = Date()
        try service.set("active", false)
        try world.startWatch()
        let lock = try world.waitForSpans("locked", count: 1, lastOpen: false)
        let end = try #require(lock.first?["end"]?.stringValue.flatMap { try? Date($0, strategy: .iso8601) })
        #expect(end <= stoppedBy, "closed where it was last seen on, not at the restart: \(lock)")
        #expect(world.stopWatch().status == 0)
    }

    @Test func aDryRunPrintsExactlyTheSpanThatWouldLeave() throws {
        let world = try FocusWorld(minSpan: "0s")
        let service = try FocusService(on: world, on: ["inhibited"])
        let r = try withExtendedLifetime(service) { try world.agent.run(["run", "--dry-run"], env: world.busEnv) }
        #expect(r.status == 0, "\(r.stderr)")
        let lines = r.stdout.split(separator: "\n").compactMap { JSONValue.parse(Array($0.utf8)) }
        #expect(lines.count == 1, "\(r.stdout) \(r.stderr)")
        let line = try #require(lines.first)
        #expect(line["adapter"] == "focus" && line["endpoint"] == "focus" && line["source"] == "linux-focus")
        guard case .object(let item)? = line["item"] else { Issue.record("no item: \(line)"); return }
        #expect(Set(item.keys) == ["key", "version", "mode", "start", "end", "via"], "only the contract's fields: \(item)")
        #expect(item["mode"] == "do-not-disturb" && item["end"] == .null && item["via"] == "kde")
        #expect(try world.node.items("focus").isEmpty, "a dry run sends nothing")
    }

    @Test func lookingStartsNoServiceTheBusCouldActivate() throws {
        // The session bus could start a notification server, a screen saver and xfconfd on
        // demand; none is running, so a look must leave them so.
        let services = FileManager.default.temporaryDirectory.appendingPathComponent("services-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: services, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: services) }
        let started = services + "/started"
        for name in ["org.freedesktop.Notifications", "org.freedesktop.ScreenSaver", "org.xfce.Xfconf"] {
            try "[D-BUS Service]\nName=\(name)\nExec=/bin/sh -c 'echo \(name) >> \(started); exit 1'\n"
                .write(toFile: services + "/\(name).service", atomically: true, encoding: .utf8)
        }
        let world = try FocusWorld(minSpan: "0s", serviceDir: services)
        let r = try world.agent.run(["run"], env: world.busEnv)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: started), "the look started \((try? String(contentsOfFile: started, encoding: .utf8)) ?? "")")
        // They are activatable: a plain call starts one (which fails at once, by exiting 1, after saying so).
        _ = try runProcess("/usr/bin/busctl", ["--address=\(world.session.address)", "call", "org.freedesktop.Notifications",
                                               "/org/freedesktop/Notifications", "org.freedesktop.DBus.Peer", "Ping"])
        #expect(FileManager.default.fileExists(atPath: started), "the bus did not start the service")
    }
}
