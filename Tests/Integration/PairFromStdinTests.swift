import Foundation
import IngestCore
import Testing

/// `pair -` and `pair` on a terminal keep the token off the command line, where every local user
/// can read it in `ps` while pair runs (and the shell's history keeps it).
@Suite("pairing without the token in ps", .serialized)
struct PairFromStdinTests {
    @Test func pairFromStdinHasNoTokenInItsCommandLine() throws {
        let node = try TestNode()
        let agent = try AgentSandbox()
        agent.secrets.append(node.token)
        let child = try Child(agentBinary, ["pair", "-"], env: agent.env, holdStdin: true)
        // pair is running and waiting for its link: what `ps` shows of it now is all anyone sees.
        // The kernel fills cmdline a moment after posix_spawn returns (exec is still loading): wait for it.
        var cmdline = ""
        #expect(eventually(30) {
            cmdline = (try? String(contentsOfFile: "/proc/\(child.pid)/cmdline", encoding: .utf8)) ?? ""
            return !cmdline.isEmpty
        })
        #expect(cmdline.split(separator: "\0").dropFirst() == ["pair", "-"], "\(cmdline)")
        #expect(!cmdline.contains(node.token))
        child.finishStdin(pairingLink(node.url, node.token) + "\n")
        let r = child.wait()
        #expect(r.status == 0, "\(r.stderr)")
        #expect(!r.stdout.contains(node.token) && !r.stderr.contains(node.token))
        #expect(!r.stderr.contains("visible to every local user"))
        #expect(try String(contentsOfFile: agent.config + "/token", encoding: .utf8) == node.token + "\n")
    }

    @Test func pairOnATerminalAsksWithoutEcho() throws {
        let node = try TestNode()
        let agent = try AgentSandbox()
        agent.secrets.append(node.token)
        // A real pseudo-terminal: the link is typed only once the prompt shows (echo is off by then),
        // and everything the terminal displayed comes back as the transcript.
        let typist = """
            import os, pty, signal, sys
            signal.alarm(60)  # a bound, not a timing: if pair never prompts, this dies and pair gets SIGHUP
            pid, fd = pty.fork()
            if pid == 0:
                os.execv(sys.argv[1], [sys.argv[1], "pair"])
            seen = b""
            while b"Pairing link" not in seen:
                seen += os.read(fd, 1024)
            os.write(fd, sys.argv[2].encode() + b"\\n")
            while True:
                try:
                    chunk = os.read(fd, 1024)
                except OSError:
                    break
                if not chunk:
                    break
                seen += chunk
            _, status = os.waitpid(pid, 0)
            sys.stdout.write(seen.decode(errors="replace"))
            sys.exit(os.waitstatus_to_exitcode(status))
            """
        let r = try runProcess("/usr/bin/python3", ["-c", typist, agentBinary, pairingLink(node.url, node.token)], env: agent.env)
        #expect(r.status == 0, "\(r.stdout) \(r.stderr)")
        #expect(r.stdout.contains("paired with \(node.url)"))
        #expect(!r.stdout.contains(node.token), "the typed link was echoed: \(r.stdout)")
        #expect(try String(contentsOfFile: agent.config + "/token", encoding: .utf8) == node.token + "\n")
    }

    @Test func aLinkGivenAsAnArgumentPairsWithOneWarning() throws {
        let node = try TestNode()
        let agent = try AgentSandbox()
        agent.secrets.append(node.token)
        let r = try agent.run(["pair", pairingLink(node.url, node.token)])
        #expect(r.status == 0)
        let warnings = r.stderr.split(separator: "\n").filter { $0.contains("visible to every local user in `ps`") }
        #expect(warnings.count == 1, "\(r.stderr)")
    }

    @Test func pairAloneWithoutATerminalIsAUsageError() throws {
        let agent = try AgentSandbox()
        let r = try agent.run(["pair"], stdin: "")
        #expect(r.status == 2)
        #expect(r.stderr.contains("pair -"))
        let empty = try agent.run(["pair", "-"], stdin: "\n")
        #expect(empty.status == 2)
        #expect(!FileManager.default.fileExists(atPath: agent.config + "/node.conf"))
    }
}
