import Foundation
import IngestCore
import Testing

/// A datagram socket standing in for systemd's `$NOTIFY_SOCKET`.
final class NotifySocket {
    let path: String
    private let fd: Int32

    init(path: String) throws {
        self.path = path
        fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &addr.sun_path) { raw in
            for (i, b) in path.utf8.enumerated() where i < raw.count - 1 { raw[i] = b }
        }
        let rc = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) } }
        guard rc == 0 else { throw POSIXError(.EADDRINUSE) }
    }

    deinit { close(fd); unlink(path) }

    /// Every message that arrives within `seconds`, until one contains `wanted`.
    func wait(for wanted: String, seconds: Double) -> [String] {
        var got: [String] = []
        let deadline = Date().addingTimeInterval(seconds)
        var buf = [UInt8](repeating: 0, count: 4096)
        while Date() < deadline {
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&p, 1, 100) > 0 else { continue }
            let n = buf.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n > 0 { got.append(String(decoding: buf[0..<n], as: UTF8.self)) }
            if got.last?.contains(wanted) == true { break }
        }
        return got
    }
}

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
