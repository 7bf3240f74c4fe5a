import Foundation
import IngestCore
import Testing

/// `doctor --json` in `agent`: the exit code and each check by subject.
struct DoctorRun {
    var status: Int32
    var checks: [(status: String, subject: String, finding: String, fix: String?)]

    init(_ agent: AgentSandbox, env: [String: String] = [:], sourceLocation: SourceLocation = #_sourceLocation) throws {
        let r = try agent.run(["doctor", "--json"], env: env, sourceLocation: sourceLocation)
        status = r.status
        let json = try #require(JSONValue.parse(Array(r.stdout.utf8)), "doctor --json printed: \(r.stdout) \(r.stderr)", sourceLocation: sourceLocation)
        checks = (json["checks"]?.arrayValue ?? []).map {
            ($0["status"]?.stringValue ?? "", $0["subject"]?.stringValue ?? "", $0["finding"]?.stringValue ?? "", $0["fix"]?.stringValue)
        }
    }

    func check(_ subject: String) -> (status: String, subject: String, finding: String, fix: String?)? {
        checks.first { $0.subject == subject }
    }
    var failed: [String] { checks.filter { $0.status == "fail" }.map(\.subject) }
}

@Suite("doctor", .serialized)
struct DoctorTests {
    /// A paired agent with a contacts adapter over the repo's fixtures and one pass behind it.
    func healthyAgent(_ node: TestNode) throws -> AgentSandbox {
        let agent = try AgentSandbox()
        try agent.usePairedNode(node.url, token: node.token, captureKey: "cap-\(UUID().uuidString)")
        try agent.write("adapters.d/people.conf", "[Adapter]\nType=contacts\nPath=\(repoRoot)/fixtures/contacts/vdirsyncer\n")
        #expect(try agent.run(["run"]).status == 0)
        return agent
    }

    @Test func aHealthySetupHasNoFailureAndExits0() throws {
        let node = try TestNode()
        let agent = try healthyAgent(node)
        let doctor = try DoctorRun(agent)
        #expect(doctor.status == 0)
        #expect(doctor.failed.isEmpty, "\(doctor.checks)")
        #expect(doctor.check("node")?.status == "ok")
        #expect(doctor.check("node")?.finding.contains("the token may ingest") == true)
        #expect(doctor.check("token")?.finding.hasSuffix("has mode 600") == true)
        #expect(doctor.check("capture key")?.status == "ok")
        #expect(doctor.check("adapters.d/people.conf")?.status == "ok")
        #expect(doctor.check("adapter people: Path=\(repoRoot)/fixtures/contacts/vdirsyncer")?.finding == "folder exists")
        #expect(doctor.check("state database")?.finding.contains("passes quick_check; outbox: empty") == true)
        // The human form: one line per check, its status first.
        let text = try agent.run(["doctor"])
        #expect(text.stdout.split(separator: "\n").count == doctor.checks.count)
        #expect(text.stdout.split(separator: "\n").allSatisfy { ["ok", "warn", "fail"].contains($0.split(separator: " ").first ?? "") })
    }

    @Test func aTokenOthersCanReadFailsWithTheChmodFix() throws {
        let node = try TestNode()
        let agent = try healthyAgent(node)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: agent.config + "/token")
        let doctor = try DoctorRun(agent)
        #expect(doctor.status == 1)
        let token = try #require(doctor.check("token"))
        #expect(token.status == "fail")
        #expect(token.finding.contains("has mode 644"))
        #expect(token.fix == "run `chmod 600 \(agent.config)/token`")
        let text = try agent.run(["doctor"])
        #expect(text.stdout.contains("fail  token: \(agent.config)/token has mode 644"))
    }

    @Test func anUnreachableNodeFailsAndNamesURL() throws {
        let agent = try AgentSandbox()
        try agent.usePairedNode("http://127.0.0.1:9", token: "tok-\(UUID().uuidString)")
        let doctor = try DoctorRun(agent)
        #expect(doctor.status == 1)
        #expect(doctor.failed == ["node"])
        let node = try #require(doctor.check("node"))
        #expect(node.finding.contains("the node does not answer"))
        #expect(node.fix?.contains("URL= in \(agent.config)/node.conf") == true)
    }

    @Test func aMissingFolderFailsForItsAdapter() throws {
        let agent = try AgentSandbox()
        let missing = agent.root + "/no-such-pictures"
        try agent.write("adapters.d/pics.conf", "[Adapter]\nType=photos\nPath=\(missing)\n")
        let doctor = try DoctorRun(agent)
        #expect(doctor.status == 1)
        #expect(doctor.failed == ["adapter pics: Path=\(missing)"])
        #expect(doctor.check("adapter pics: Path=\(missing)")?.finding == "does not exist")
    }

    @Test func aDamagedDatabaseFailsWithTheWayOut() throws {
        let agent = try AgentSandbox()
        try FileManager.default.createDirectory(atPath: agent.state, withIntermediateDirectories: true)
        try Data(repeating: 0x42, count: 8192).write(to: URL(fileURLWithPath: agent.state + "/state.db"))
        let doctor = try DoctorRun(agent)
        #expect(doctor.status == 1)
        let state = try #require(doctor.check("state database"))
        #expect(state.status == "fail")
        #expect(state.finding.contains("state.db is damaged"))
        #expect(state.fix?.contains("mv \(agent.state)/state.db") == true)
    }

    @Test func gpsdIsAskedAtItsHostAndPort() throws {
        let port = 31_000 + Int(getpid() % 5000)
        let agent = try AgentSandbox()
        try agent.write("adapters.d/gps.conf", "[Adapter]\nType=gpsd\nHost=127.0.0.1\nPort=\(port)\n")
        let subject = "adapter gps: gpsd at 127.0.0.1:\(port)"
        let gps = try GPSFake(log: repoRoot + "/fixtures/gpsd/day.nmea", port: port)   // a real gpsd, listening
        let up = try DoctorRun(agent)
        #expect(up.status == 0)
        #expect(up.check("adapter gps: libgps")?.status == "ok")
        #expect(up.check(subject)?.finding.hasPrefix("answers (protocol 3.") == true, "\(up.checks)")
        gps.kill()
        let down = try DoctorRun(agent)
        #expect(down.status == 1)
        #expect(down.check(subject)?.status == "fail")
        #expect(down.check(subject)?.fix?.contains("start gpsd") == true)
    }

    @Test func mprisAsksTheSessionBus() throws {
        let agent = try AgentSandbox()
        try agent.write("adapters.d/music.conf", "[Adapter]\nType=mpris\n")
        let bus = try PrivateBus()
        let there = try DoctorRun(agent, env: bus.env)
        #expect(there.check("adapter music: session bus")?.finding == "answers; players now: none")
        let gone = try DoctorRun(agent, env: ["DBUS_SESSION_BUS_ADDRESS": "unix:path=\(agent.root)/no-bus"])
        #expect(gone.status == 0)                                   // a warning: doctor may run outside the session
        #expect(gone.check("adapter music: session bus")?.status == "warn")
    }

    @Test func scansNamesAMissingLanguageAndChecksTheInstalledOnesAndLibraries() throws {
        let agent = try AgentSandbox()
        let folder = agent.root + "/scans"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try agent.write("adapters.d/paper.conf", "[Adapter]\nType=scans\nPath=\(folder)\nLanguages=deu+eng\n")
        try agent.write("adapters.d/greek.conf", "[Adapter]\nType=scans\nPath=\(folder)\nLanguages=qqq+eng\n")
        let doctor = try DoctorRun(agent)
        #expect(doctor.status == 1)
        #expect(doctor.failed == ["adapter greek"], "\(doctor.checks)")
        let missing = try #require(doctor.check("adapter greek"))
        #expect(missing.finding.contains("qqq.traineddata not installed in /usr/share/tesseract-ocr/5/tessdata; install tesseract-ocr-qqq"), "\(missing)")
        #expect(doctor.check("adapter paper: Path=\(folder)")?.finding == "folder exists")
        #expect(doctor.check("adapter paper: Languages=deu+eng")?.status == "ok")
        #expect(doctor.check("adapter paper: orientation data")?.finding == "osd.traineddata installed in /usr/share/tesseract-ocr/5/tessdata")
        #expect(doctor.check("adapter paper: libtesseract")?.finding.hasPrefix("Tesseract 5.") == true)
        #expect(doctor.check("adapter paper: poppler-glib")?.finding == "loads")
        #expect(doctor.check("adapter paper: libqpdf")?.status == "ok", "optional, installed here: a PDF's scanned pages decoded from their streams")
    }

    @Test func scansWarnsWhenOrientationDataIsMissing_withThePackage() throws {
        let agent = try AgentSandbox()
        let tessdata = agent.root + "/tessdata"
        try FileManager.default.createDirectory(atPath: tessdata, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: tessdata + "/eng.traineddata", withDestinationPath: "/usr/share/tesseract-ocr/5/tessdata/eng.traineddata")
        try agent.write("adapters.d/paper.conf", "[Adapter]\nType=scans\nPath=\(agent.root)\n")
        try agent.write("adapters.d/flat.conf", "[Adapter]\nType=scans\nPath=\(agent.root)\nStraighten=no\n")
        let doctor = try DoctorRun(agent, env: ["TESSDATA_PREFIX": tessdata])
        #expect(doctor.status == 0, "a warning: pages are still read, as they lie")
        let check = try #require(doctor.check("adapter paper: orientation data"))
        #expect(check.status == "warn" && check.finding.hasPrefix("osd.traineddata not installed in \(tessdata)"), "\(check)")
        #expect(check.fix == "sudo apt install tesseract-ocr-osd")
        #expect(doctor.check("adapter flat: orientation data") == nil, "Straighten=no needs no orientation data")
    }

    @Test func locationHistoryChecksItsPaths() throws {
        let agent = try AgentSandbox()
        let missing = agent.root + "/no-takeout"
        try agent.write("adapters.d/trips.conf", "[Adapter]\nType=location-history\nPath=\(repoRoot)/fixtures\nPath=\(missing)\n")
        let doctor = try DoctorRun(agent)
        #expect(doctor.check("adapter trips: Path=\(repoRoot)/fixtures")?.status == "ok")
        #expect(doctor.failed == ["adapter trips: Path=\(missing)"])
    }

    @Test func geoclueLetsUsInWhenAnAgentRuns() throws {
        let world = try GeoClueWorld()
        try world.startGeoclue()
        try world.startLocationAgent()
        let doctor = try DoctorRun(world.agent, env: world.bus.env)
        #expect(doctor.status == 0, "\(doctor.checks)")
        let geoclue = try #require(doctor.check("adapter geo: geoclue"))
        #expect(geoclue.status == "ok")
        #expect(geoclue.finding.hasPrefix("lets hearthloom-ingest in"))
    }

    @Test func geoclueWithoutAnAgentIsAWarningAndDoctorReturns() throws {
        let world = try GeoClueWorld()
        try world.startGeoclue()
        let doctor = try DoctorRun(world.agent, env: world.bus.env)
        #expect(doctor.status == 0)
        let geoclue = try #require(doctor.check("adapter geo: geoclue"))
        #expect(geoclue.status == "warn")
        #expect(geoclue.finding.hasPrefix("no location agent registered"))
        #expect(geoclue.fix?.contains("GNOME Shell, Phosh, or /usr/libexec/geoclue-2.0/demos/agent") == true)
    }

    @Test func geoclueRefusingUsFailsNamingTheConfSection() throws {
        let world = try GeoClueWorld(geoclueConfig: GeoClueWorld.geoclueConfig(app: "allowed=false\nsystem=false\nusers="))
        try world.startGeoclue()
        try world.startLocationAgent()
        let doctor = try DoctorRun(world.agent, env: world.bus.env)
        #expect(doctor.failed == ["adapter geo: geoclue"], "\(doctor.checks)")
        #expect(doctor.check("adapter geo: geoclue")?.finding.contains("disallowed by configuration") == true)
        #expect(doctor.check("adapter geo: geoclue")?.fix?.hasPrefix(
            "add to /etc/geoclue/geoclue.conf a section [hearthloom-ingest] with allowed=true, system=true, users=") == true)
    }

    @Test func geoclueAbsentFailsWithThePackage() throws {
        let world = try GeoClueWorld()                  // a system bus that activates nothing, and no geoclue on it
        let doctor = try DoctorRun(world.agent, env: world.bus.env)
        #expect(doctor.failed == ["adapter geo: geoclue"])
        #expect(doctor.check("adapter geo: geoclue")?.fix == "install it: sudo apt install geoclue-2.0")
    }

    @Test func focusSaysWhichSourcesAnswer() throws {
        let world = try FocusWorld()
        let session = try FocusService(on: world, on: ["inhibited"])
        let system = try FocusService(on: world, system: true, on: ["locked"])
        let doctor = try DoctorRun(world.agent, env: world.busEnv)
        #expect(doctor.status == 0)
        #expect(doctor.check("adapter focus: session bus")?.finding == "answers")
        #expect(doctor.check("adapter focus: Notifications")?.finding == "answers; Inhibited (do not disturb) is on")
        #expect(doctor.check("adapter focus: ScreenSaver")?.finding == "answers; active is off")
        #expect(doctor.check("adapter focus: xfconfd")?.finding == "answers; xfce4-notifyd's do-not-disturb is off")
        #expect(doctor.check("adapter focus: logind")?.finding.contains("locked on, idle off") == true, "\(doctor.checks)")
        _ = (session, system)
    }

    @Test func focusWarnsOfSilentSourcesAndOfNoBus() throws {
        let agent = try AgentSandbox()
        try agent.write("adapters.d/focus.conf", "[Adapter]\nType=focus\n")
        let noSystemBus = ["DBUS_SYSTEM_BUS_ADDRESS": "unix:path=\(agent.root)/no-system-bus"]
        let quiet = try PrivateBus(activation: false)           // a session bus nothing is on, and that starts nothing
        let bare = try DoctorRun(agent, env: quiet.env.merging(noSystemBus) { _, n in n })
        #expect(bare.status == 0)
        #expect(bare.check("adapter focus: session bus")?.status == "ok")
        for source in ["Notifications", "ScreenSaver", "xfconfd"] {
            #expect(bare.check("adapter focus: \(source)")?.status == "warn", "\(source): \(bare.checks)")
        }
        #expect(bare.check("adapter focus: system bus")?.status == "warn")
        let gone = try DoctorRun(agent, env: noSystemBus.merging(["DBUS_SESSION_BUS_ADDRESS": "unix:path=\(agent.root)/no-bus"]) { _, n in n })
        #expect(gone.status == 0)
        #expect(gone.check("adapter focus: session bus")?.status == "warn")
        #expect(gone.check("adapter focus: session bus")?.fix?.contains("DBUS_SESSION_BUS_ADDRESS") == true)
    }

    @Test func deadLettersAreAWarningWithTheirCount() throws {
        let agent = try AgentSandbox()
        try queue(agent, endpoint: .photos, source: "linux-photos", count: 1)
        let store = try agent.store()
        try store.deadLetter(try store.nextBatch(try #require(try store.lanes().first), after: 0, maxItems: 10, maxBytes: 1 << 20), error: "refused")
        let doctor = try DoctorRun(agent)
        #expect(doctor.status == 0)
        #expect(doctor.check("dead letters")?.status == "warn")
        #expect(doctor.check("dead letters")?.finding.hasPrefix("photos 1") == true)
    }
}

@Suite("traceparent", .serialized)
struct TraceparentTests {
    /// `00-<32 hex>-<16 hex>-01` → (trace id, span id).
    func parse(_ header: String?) -> (trace: String, span: String)? {
        let parts = (header ?? "").split(separator: "-").map(String.init)
        guard parts.count == 4, parts[0] == "00", parts[3] == "01", parts[1].count == 32, parts[2].count == 16,
              (parts[1] + parts[2]).allSatisfy(\.isHexDigit) else { return nil }
        return (parts[1], parts[2])
    }

    @Test func eachRunIsOneTraceAndEachRequestASpan_andVerboseLogsTheTrace() throws {
        let node = try TestNode()
        let agent = try AgentSandbox()
        try agent.usePairedNode(node.url, token: node.token)
        try queue(agent, endpoint: .photos, source: "linux-photos", count: 3)
        try CaptureQueue.enqueue(["a note"], via: "args", store: agent.store())
        let first = try agent.run(["drain", "-v", "-v"])
        #expect(first.status == 0)
        try queue(agent, endpoint: .photos, source: "linux-photos", count: 1, prefix: "later")
        #expect(try agent.run(["drain"]).status == 0)

        let posts = try node.requests().filter { $0["path"]?.stringValue?.hasPrefix("/v1/ingest/") == true }
        #expect(posts.count == 3)
        let spans = posts.compactMap { parse($0["headers"]?["traceparent"]?.stringValue) }
        #expect(spans.count == 3, "every ingest POST carries a valid traceparent: \(posts.map { $0["headers"] })")
        #expect(spans[0].trace == spans[1].trace)            // the first drain: one trace, two requests
        #expect(spans[0].span != spans[1].span)
        #expect(spans[2].trace != spans[0].trace)            // the second drain: a trace of its own
        #expect(first.stderr.contains("trace \(spans[0].trace)"))
    }
}
