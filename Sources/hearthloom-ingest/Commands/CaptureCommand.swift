import FoundationEssentials
import IngestCore

enum CaptureCommand {
    static let command = Command(
        name: "capture",
        usage: "capture [TEXT…] [--lines]",
        summary: "Queue a quick capture from the arguments, or from stdin when none (or `-`).",
        details: """
            The capture is on disk (fsync'd) before the command returns, then captures are sent.
            Works with no network: it exits 0 once queued, and a later run, drain or watch sends it.
            """,
        options: [OptionSpec(long: "lines", help: "make each stdin line its own capture")],
        run: { args, agent throws(AgentError) in
            let texts: [String]
            let via: String
            if args.positionals.isEmpty || args.positionals == ["-"] {
                let input = StandardInput.readAll()
                via = "stdin"
                if args.flag("lines") {
                    texts = input.split(whereSeparator: \.isNewline).map { String($0) }.filter { !$0.allSatisfy(\.isWhitespace) }
                } else {
                    let whole = input.trimmingTrailingWhitespace
                    texts = whole.allSatisfy(\.isWhitespace) ? [] : [whole]
                }
            } else {
                guard !args.flag("lines") else { throw AgentError(.usage, "--lines reads stdin; give no TEXT with it") }
                texts = [args.positionals.joined(separator: " ")]
                via = "args"
            }
            guard !texts.isEmpty else { throw AgentError(.usage, "nothing to capture: the text is empty") }

            if try await agent.capture(texts, via: via) {
                Log.notice("capture kept in the queue; it is sent on the next run or drain")
            }
            return .ok
        })
}

extension String {
    var trimmingTrailingWhitespace: String {
        var s = Substring(self)
        while let l = s.last, l.isWhitespace { s = s.dropLast() }
        return String(s)
    }

    var trimmingWhitespace: String { String(drop(while: \.isWhitespace)).trimmingTrailingWhitespace }
}
