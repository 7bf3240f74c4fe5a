import Foundation
import Testing

/// Completion scripts driven by the real shells, the man page through both linters, the user
/// units through systemd-analyze.
@Suite("shell completions, man page, systemd units")
struct ShellTests {
    func script(_ shell: String) throws -> String {
        let r = try runProcess(agentBinary, ["completions", shell])
        #expect(r.status == 0)
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("hl-completion-\(UUID().uuidString.prefix(8)).\(shell)").path
        try r.stdout.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// What bash's completion function offers for `line` (the last word is being completed).
    func bashCompletes(_ script: String, _ words: [String], env: [String: String] = [:]) throws -> [String] {
        let quoted = words.map { "'\($0)'" }.joined(separator: " ")
        let r = try runProcess("/bin/bash", ["--norc", "-c", """
            source '\(script)'
            complete -p hearthloom-ingest >/dev/null || exit 9
            COMP_WORDS=(hearthloom-ingest \(quoted)); COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
            _hearthloom_ingest
            printf '%s\\n' "${COMPREPLY[@]}"
            """], env: env)
        #expect(r.status == 0, "\(r.stderr)")
        return r.stdout.split(separator: "\n").map(String.init)
    }

    @Test func bashCompletesCommandsOptionsInstancesAndTypes() throws {
        let bash = try script("bash")
        defer { try? FileManager.default.removeItem(atPath: bash) }
        let agent = try AgentSandbox()
        for name in ["pics", "people"] { try agent.write("adapters.d/\(name).conf", "[Adapter]\nType=photos\n") }
        #expect(try bashCompletes(bash, ["d"]) == ["drain", "doctor"])
        #expect(try bashCompletes(bash, ["doctor", "--j"]) == ["--json"])
        #expect(try bashCompletes(bash, ["run", "--adapter", "p"], env: agent.env) == ["people", "pics"])
        #expect(try bashCompletes(bash, ["--config-dir", agent.config, "resync", ""]) == ["people", "pics"])
        #expect(try bashCompletes(bash, ["adapters", "c"]) == ["contacts", "calendar"])
        #expect(try bashCompletes(bash, ["completions", ""]) == ["bash", "zsh", "fish"])
        // compgen sees the same function bash-completion would call.
        let r = try runProcess("/bin/bash", ["--norc", "-c", "source '\(bash)'; complete -p hearthloom-ingest"])
        #expect(r.stdout == "complete -F _hearthloom_ingest hearthloom-ingest\n")
    }

    @Test func fishCompletesAndZshParses() throws {
        let fish = try script("fish"), zsh = try script("zsh")
        defer { for f in [fish, zsh] { try? FileManager.default.removeItem(atPath: f) } }
        let agent = try AgentSandbox()
        try agent.write("adapters.d/music.conf", "[Adapter]\nType=mpris\n")
        let r = try runProcess("/usr/bin/fish", ["--no-config", "-c", "source '\(fish)'; complete -C 'hearthloom-ingest resync '; complete -C 'hearthloom-ingest doc'"],
                               env: agent.env)
        #expect(r.status == 0, "\(r.stderr)")
        let offered = r.stdout.split(separator: "\n").map { String($0.split(separator: "\t").first ?? "") }
        #expect(offered == ["music", "doctor"])
        let z = try runProcess("/usr/bin/zsh", ["-f", "-c", "autoload -Uz compinit && compinit -u -D && source '\(zsh)' && [[ ${_comps[hearthloom-ingest]} == _hearthloom_ingest ]]"])
        #expect(z.status == 0, "\(z.stdout) \(z.stderr)")
    }

    @Test func theManPageLintsCleanAndListsEveryCommand() throws {
        let r = try runProcess(agentBinary, ["--man-page", repoRoot + "/README.md"])
        #expect(r.status == 0)
        let page = FileManager.default.temporaryDirectory.appendingPathComponent("hearthloom-ingest-\(UUID().uuidString.prefix(8)).1").path
        try r.stdout.write(toFile: page, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: page) }
        let groff = try runProcess("/usr/bin/groff", ["-ww", "-z", "-man", page])
        #expect(groff.status == 0 && groff.stderr.isEmpty, "\(groff.stderr)")
        let mandoc = try runProcess("/usr/bin/mandoc", ["-T", "lint", page])
        #expect(mandoc.status == 0 && mandoc.stdout.isEmpty && mandoc.stderr.isEmpty, "\(mandoc.stdout)\(mandoc.stderr)")
        for command in ["pair", "run", "resync", "capture", "drain", "watch", "status", "adapters", "doctor", "completions"] {
            #expect(r.stdout.contains(".B \(command)\n"), "\(command) missing from the man page")
        }
        #expect(r.stdout.contains(".SH EXIT STATUS\n\\fB0\\fR ok;"))
        #expect(r.stdout.contains("TokenStore=keyring"))
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/systemd-analyze"), "systemd-analyze is not installed"))
    func theUserUnitsVerify() throws {
        // Installed as `make install` would, the binary pointing at the one under test.
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("units-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var units: [String] = []
        for name in ["hearthloom-ingest.service", "hearthloom-ingest.timer", "hearthloom-ingest-watch.service"] {
            let text = try String(contentsOfFile: repoRoot + "/systemd/" + name, encoding: .utf8)
            try text.replacingOccurrences(of: "%h/.local/bin/hearthloom-ingest", with: agentBinary).write(toFile: dir + "/" + name, atomically: true, encoding: .utf8)
            units.append(dir + "/" + name)
        }
        let r = try runProcess("/usr/bin/systemd-analyze", ["verify", "--user", "--man=no"] + units, env: ["XDG_RUNTIME_DIR": dir])
        #expect(r.status == 0 && r.stderr.isEmpty, "\(r.stdout)\(r.stderr)")
        for unit in ["hearthloom-ingest.service", "hearthloom-ingest-watch.service"] {
            let lines = try String(contentsOfFile: dir + "/" + unit, encoding: .utf8).split(separator: "\n")
            #expect(!lines.contains { $0.hasPrefix("After=") && $0.contains("network-online.target") }, "a user manager has no network-online.target")
        }
    }
}
