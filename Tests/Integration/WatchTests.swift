import Foundation
import IngestCore
import Testing

/// When `adapter`'s last scan ended, from the agent's state store.
func lastScan(_ agent: AgentSandbox, _ adapter: String) throws -> Date? {
    try StateStore(readOnlyAt: Paths(configDir: agent.config, stateDir: agent.state))?.adapterStats()[adapter]?.lastScan
}

@Suite("watch", .serialized)
struct WatchTests {
    @Test func watchRescansSendsAndStopsCleanlyOnSIGTERM() throws {
        let node = try TestNode()
        let agent = try AgentSandbox()
        try agent.usePairedNode(node.url, token: node.token)
        let photos = agent.root + "/photos"
        try FileManager.default.createDirectory(atPath: photos, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: repoRoot + "/fixtures/demo/photos/harbour.jpg", toPath: photos + "/harbour.jpg")
        try agent.write("adapters.d/pics.conf", "[Adapter]\nType=photos\nPath=\(photos)\n")
        let notify = try NotifySocket(path: agent.root + "/notify.sock")

        let watch = try Child(agentBinary, ["watch", "--interval", "1s", "--send-every", "1s"],
                              env: agent.env.merging(["NOTIFY_SOCKET": notify.path, "WATCHDOG_USEC": "2000000"]) { _, n in n })
        let ready = notify.wait(for: "READY=1", seconds: 10)
        #expect(ready.contains { $0.contains("READY=1") }, "no READY from watch: \(ready)")
        #expect(try eventually(10) { try node.items("photos").count == 1 })

        // A new photo is picked up by the next rescan, with no command run by hand.
        try FileManager.default.copyItem(atPath: repoRoot + "/fixtures/demo/photos/summit.jpg", toPath: photos + "/summit.jpg")
        #expect(try eventually(10) { try node.items("photos").count == 2 })
        let pings = notify.wait(for: "WATCHDOG=1", seconds: 5)
        #expect(pings.contains { $0.contains("WATCHDOG=1") }, "no watchdog ping: \(pings)")

        watch.signal(SIGTERM)
        let stopping = notify.wait(for: "STOPPING=1", seconds: 10)
        #expect(stopping.contains { $0.contains("STOPPING=1") })
        let result = watch.wait()
        #expect(result.status == 0, "\(result.stderr)")
    }

    @Test func aChangeInAWatchedFolderIsPickedUpWithoutWaitingForTheInterval() throws {
        let node = try TestNode()
        let agent = try AgentSandbox()
        try agent.usePairedNode(node.url, token: node.token)
        let photos = agent.root + "/photos"
        try FileManager.default.createDirectory(atPath: photos, withIntermediateDirectories: true)
        try agent.write("adapters.d/pics.conf", "[Adapter]\nType=photos\nPath=\(photos)\n")
        let notify = try NotifySocket(path: agent.root + "/notify.sock")
        let watch = try Child(agentBinary, ["watch", "--interval", "1h", "--send-every", "1s"], env: agent.env.merging(["NOTIFY_SOCKET": notify.path]) { _, n in n })
        defer { watch.signal(SIGKILL); _ = watch.wait() }
        #expect(notify.wait(for: "READY=1", seconds: 10).contains { $0.contains("READY=1") })
        #expect(try eventually(10) { try lastScan(agent, "pics") != nil }, "the first scan (of an empty folder) never ended")

        // With an hour's interval, only inotify can bring these in: one in the watched folder,
        // one in a folder made after the watch began.
        try FileManager.default.copyItem(atPath: repoRoot + "/fixtures/demo/photos/harbour.jpg", toPath: photos + "/harbour.jpg")
        #expect(try eventually(15) { try node.items("photos").count == 1 })
        let made = Date()
        try FileManager.default.createDirectory(atPath: photos + "/2024/trip", withIntermediateDirectories: true)
        // The new folders are a change too: once the rescan they bring has ended, the photo below
        // can only come in by a watch on a folder that did not exist when `watch` began.
        #expect(try eventually(15) { try lastScan(agent, "pics").map { $0 > made } == true }, "the new folders brought no rescan")
        try FileManager.default.copyItem(atPath: repoRoot + "/fixtures/demo/photos/summit.jpg", toPath: photos + "/2024/trip/summit.jpg")
        #expect(try eventually(15) { try node.items("photos").count == 2 })
    }
}
