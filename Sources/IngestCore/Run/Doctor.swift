import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// `doctor`: the whole setup checked, one ``DoctorCheck`` per line. It changes nothing: the state
/// database is opened read-only, the node is only asked `GET /v1/health` and `GET /v1/whoami`.
public struct DoctorReport: Sendable {
    public var checks: [DoctorCheck] = []

    public var failed: Bool { checks.contains { $0.status == .fail } }
    /// 1 when any check failed, else 0: warnings alone do not fail.
    public var exitCode: ExitCode { failed ? .someFailed : .ok }

    public var json: JSONValue {
        func count(_ s: DoctorCheck.Status) -> JSONValue { .int(Int64(checks.filter { $0.status == s }.count)) }
        return .object([
            "checks": .array(checks.map { c in
                .object(["status": .string(c.status.rawValue), "subject": .string(c.subject), "finding": .string(c.finding), "fix": JSONValue(c.fix)])
            }),
            "ok": count(.ok), "warn": count(.warn), "fail": count(.fail), "exit_code": .int(Int64(exitCode.rawValue)),
        ])
    }
}

extension Agent {
    /// Runs every check in order: config, credentials, node, state database, each enabled
    /// adapter's own checks, the systemd units.
    public func doctor() async -> DoctorReport {
        var report = DoctorReport()
        let node: NodeConfig?
        do { node = try nodeConfig(); report.checks.append(.ok("node.conf", FileSystem.exists(paths.nodeConf) ? "parses" : "none; the defaults apply")) }
        catch { node = nil; report.checks.append(.fail("node.conf", error.message, fix: "correct the line and key named, or remove the file to use the embedded local node")) }
        let adapters = adapterConfigChecks(&report.checks)
        if let node {
            let credentials = credentialChecks(node, &report.checks)
            report.checks.append(nodeCheck(node, credentials))
        }
        report.checks += stateChecks(maxQueue: node?.maxQueue ?? NodeConfig.Key.maxQueue.defaultValue)
        for config in adapters where config.enabled {
            let subject = "adapter \(config.name)"
            do {
                let adapter = try registry.make(config)
                report.checks += await adapter.doctorChecks().map { $0.about("\(subject): \($0.subject)") }
            } catch {
                report.checks.append(.fail(subject, error.message, fix: "correct the key named in \(config.file)"))
            }
        }
        report.checks += SystemdUnits.checks()
        return report
    }

    /// One check per `adapters.d/*.conf`; returns the instances that parsed.
    private func adapterConfigChecks(_ checks: inout [DoctorCheck]) -> [AdapterConfig] {
        let files: [String]
        do { files = try AdapterRegistry.configFiles(paths) } catch {
            checks.append(.fail("adapters.d", error.message, fix: "make \(paths.adaptersDir) a folder you can read"))
            return []
        }
        if files.isEmpty {
            checks.append(.warn("adapters.d", "no adapter configured in \(paths.adaptersDir)",
                                fix: "copy an example from the repo's adapters.d/ there (`hearthloom-ingest adapters` lists every type)"))
        }
        var configs: [AdapterConfig] = []
        for file in files {
            let name = "adapters.d/" + FileSystem.baseName(file)
            do {
                let config = try registry.loadConfig(file: file)
                configs.append(config)
                checks.append(.ok(name, "parses (Type=\(config.type), " + (config.enabled ? "enabled)" : "disabled)")))
            } catch {
                checks.append(.fail(name, error.message, fix: "correct the line and key named (`hearthloom-ingest adapters` lists the keys)"))
            }
        }
        return configs
    }

    /// The token and capture key: where they come from, and that nobody else may read their files.
    /// Returns the credentials when they can be used.
    private func credentialChecks(_ node: NodeConfig, _ checks: inout [DoctorCheck]) -> Credentials? {
        guard node.url != nil else { return nil }
        let source = Credentials.source(node)
        switch source {
        case .systemd(let file): checks.append(.ok("token", "from systemd's credentials (\(file))"))
        case .file(let file): checks.append(secretFileCheck("token", file, required: true))
        case .keyring: break
        }
        if case .file = source { checks.append(secretFileCheck("capture key", node.captureKeyFile, required: false)) }
        do {
            let credentials = try Credentials.load(node)
            if case .keyring = source {
                checks.append(.ok("token", "in the keyring" + (credentials.captureKey != nil ? ", with a capture key" : "")))
            }
            return credentials
        } catch {
            if case .keyring = source {
                checks.append(.fail("token", error.message, fix: error.code == .node
                    ? "unlock your login keyring (log in to the desktop, or `gnome-keyring-daemon --unlock`), then run doctor again"
                    : "pair again so the token is written to the keyring: `hearthloom-ingest pair` and paste the link"))
            }
            return nil
        }
    }

    private func secretFileCheck(_ what: String, _ file: String, required: Bool) -> DoctorCheck {
        let mode: mode_t
        do throws(FileSystemError) { mode = try FileSystem.mode(file) } catch {
            if !required, error.errno == ENOENT { return .ok(what, "none; captures use the device token") }
            return .fail(what, "\(file): \(error.message)", fix: "pair again: `hearthloom-ingest pair` and paste the link")
        }
        let octal = String(mode, radix: 8)
        guard mode & 0o077 == 0 else {
            return .fail(what, "\(file) has mode \(octal): others may read it, so it is refused", fix: "run `chmod 600 \(file)`")
        }
        return .ok(what, "\(file) has mode \(octal)")
    }

    /// The node answers `/v1/health` and the token may ingest (`/v1/whoami`).
    private func nodeCheck(_ node: NodeConfig, _ credentials: Credentials?) -> DoctorCheck {
        guard let url = node.url else {
            return .warn("node", "not paired: items go to the embedded local node (\(paths.localNodeDatabase))",
                         fix: "pair with your node: `hearthloom-ingest pair` and paste its pairing link (not echoed)")
        }
        guard let credentials else { return .warn("node", "\(url) not asked: no usable token", fix: "fix the token first (see above)") }
        let client: NodeClient
        do {
            client = try NodeClient(url: url, token: credentials.token, captureKey: nil, caFile: node.caFile, headers: node.headers,
                                    device: DeviceIdentity.current(store: nil), timeout: 10)
        } catch { return .fail("node", error.message, fix: "install libcurl: sudo apt install libcurl4") }
        do throws(Pairing.VerifyError) {
            let verified = try Pairing.verify(client, url: url)
            let version = verified.nodeVersion.map { " (node \($0))" } ?? ""
            return .ok("node", "\(url) answers\(version) and the token may ingest")
        } catch {
            switch error {
            case .refusedToken, .lacksIngestScope:   // only a fresh token fixes these
                return .fail("node", error.message,
                             fix: "pair again with a fresh link from the node's dashboard: `hearthloom-ingest pair` and paste it")
            case .unreachable, .notANode, .whoamiUnreachable, .whoamiStatus:
                return .fail("node", error.message,
                             fix: "check that the node is up and that URL= in \(node.file) is right; everything queued is kept meanwhile")
            }
        }
    }

    /// `PRAGMA quick_check` of the state database, then its outbox and dead letters.
    private func stateChecks(maxQueue: Int64) -> [DoctorCheck] {
        let file = paths.stateDatabase
        let damaged = { (why: String) in
            DoctorCheck.fail("state database", "\(file) is damaged: \(why)",
                             fix: "move it and its WAL aside (`mv \(file) \(file).damaged; mv \(file)-wal \(file).damaged-wal`) and run again; anchors start over and unsent items in it are lost")
        }
        let store: StateStore
        do {
            guard let opened = try StateStore(readOnlyAt: paths) else { return [.ok("state database", "none yet; the first run creates \(file)")] }
            store = opened
        } catch { return [damaged(error.message)] }
        do {
            let problems = try store.quickCheck()
            guard problems.isEmpty else { return [damaged(problems.prefix(3).joined(separator: "; "))] }
            let outbox = try store.outboxDepth(), dead = try store.deadLetterCounts()
            var checks: [DoctorCheck] = [.ok("state database", "\(file) passes quick_check; outbox: " + outbox.summary(empty: "empty"))]
            let held = try store.outboxBytes()
            if OutboxBudget.isNearlyFull(held: held, limit: maxQueue) {
                checks.append(.warn("outbox", "nearly full: it holds \(OutboxFull.text(held)) of MaxQueue=\(OutboxFull.text(maxQueue)), and file adapters stop before passing it",
                                    fix: "let the node take it (`hearthloom-ingest status` says why it does not), or raise MaxQueue= in node.conf"))
            }
            if !dead.isEmpty {
                checks.append(.warn("dead letters", dead.summary(empty: "") + " (items the node refused)",
                                    fix: "`hearthloom-ingest status` shows why; correct the source, then `hearthloom-ingest resync NAME`"))
            }
            return checks
        } catch { return [damaged(error.message)] }
    }
}

extension DoctorCheck {
    /// One check per configured path of a file adapter: that it exists and may be read.
    public static func paths(_ paths: [String], key: String = "Path") -> [DoctorCheck] {
        paths.map { path in
            if !FileSystem.exists(path) {
                return .fail("\(key)=\(path)", "does not exist", fix: "create it, or correct \(key)= in this adapter's .conf file")
            }
            let wanted = FileSystem.isDirectory(path) ? R_OK | X_OK : R_OK
            guard access(path, wanted) == 0 else {
                return .fail("\(key)=\(path)", "exists but cannot be read", fix: "give yourself read access: chmod u+r \(path)")
            }
            return .ok("\(key)=\(path)", FileSystem.isDirectory(path) ? "folder exists" : "file exists")
        }
    }
}
