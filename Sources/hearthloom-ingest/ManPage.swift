import FoundationEssentials
import IngestCore

/// `hearthloom-ingest.1`, rendered from the command table, the adapter types, and two sections of
/// README.md (`## Configuration` and `### Exit codes`), so the man page says what the binary
/// and the README say. `make install` runs `hearthloom-ingest --man-page README.md`.
struct ManPage {
    var commands: [Command]
    var global: [OptionSpec]
    var types: [any DeviceAdapter.Type]
    var readme: String
    /// `SOURCE_DATE_EPOCH` when set (reproducible builds), else now.
    var date: Date

    var roff: String {
        var out = ".TH HEARTHLOOM\\-INGEST 1 \(day) \"hearthloom\\-ingest \(AgentVersion.string)\" \"User Commands\"\n"
        out += ".SH NAME\nhearthloom\\-ingest \\- feed a Hearthloom node from what this Linux machine sees\n"
        out += ".SH SYNOPSIS\n.B hearthloom\\-ingest\n.I command\n.RI [ options ]\n"
        out += ".SH DESCRIPTION\n" + Roff.text("A client of your self-hosted Hearthloom node: adapters read sources on this machine, their items are queued in a local state database and sent to the node's /v1/ingest endpoints.") + "\n"
        out += ".SH COMMANDS\n"
        for c in commands {
            out += ".TP\n.B \(Roff.escape(c.name))\n" + Roff.text("Usage: hearthloom-ingest " + c.usage) + "\n.br\n" + Roff.text(c.summary) + "\n"
            if !c.details.isEmpty { out += ".IP\n" + Roff.text(c.details.split(separator: "\n").joined(separator: " ")) + "\n" }
            if !c.options.isEmpty { out += ".RS\n" + c.options.map(option).joined() + ".RE\n" }
        }
        out += ".SH OPTIONS\nEvery command takes:\n" + global.map(option).joined()
        out += ".SH CONFIGURATION\n" + Roff.markdown(section("## Configuration"))
        out += ".SS Adapter types\n"
        for t in types { out += ".TP\n.B \(Roff.escape(t.type))\n" + Roff.text(t.summary) + "\n" }
        out += ".SH EXIT STATUS\n" + Roff.markdown(section("### Exit codes"))
        out += ".SH FILES\n.TP\n.I $XDG_CONFIG_HOME/hearthloom/\nnode.conf, adapters.d/*.conf, token, capture\\-key\n"
        out += ".TP\n.I $XDG_STATE_HOME/hearthloom/\nstate.db (outbox, anchors, records), local\\-node.db\n"
        out += ".SH SEE ALSO\n.BR systemctl (1),\n.BR secret\\-tool (1)\n"
        return out
    }

    private var day: String { String(date.rfc3339.prefix(10)) }

    private func option(_ o: OptionSpec) -> String {
        var head = "\\fB\\-\\-\(Roff.escape(o.long))\\fR"
        if let s = o.short { head = "\\fB\\-\(s)\\fR, " + head }
        if let v = o.value { head += " \\fI\(Roff.escape(v))\\fR" }
        return ".TP\n" + head + "\n" + Roff.text(o.help + (o.repeated ? " (repeatable)" : "")) + "\n"
    }

    /// The body of the README section that starts with `heading`, up to the next heading.
    private func section(_ heading: String) -> String {
        let lines = readme.split(separator: "\n", omittingEmptySubsequences: false)
        guard let start = lines.firstIndex(where: { $0 == heading }) else { return "(see README.md: \(heading.drop { $0 == "#" || $0 == " " }))" }
        var body: [Substring] = []
        var inFence = false
        for line in lines[(start + 1)...] {
            if line.hasPrefix("```") { inFence.toggle() }
            if !inFence && line.hasPrefix("#") { break }
            body.append(line)
        }
        return body.joined(separator: "\n")
    }
}

/// Markdown (the little the README uses) and plain text turned into man(7) roff.
enum Roff {
    /// Paragraphs, `- ` lists and fenced code blocks.
    static func markdown(_ text: String) -> String {
        var out = ""
        var paragraph: [String] = []
        var fence: [String]?
        func flush() { if !paragraph.isEmpty { out += self.text(paragraph.joined(separator: " ")) + "\n"; paragraph = [] } }
        for raw in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let line = String(raw)
            if line.hasPrefix("```") {
                if let lines = fence {
                    out += (out.hasSuffix(".PP\n") ? "" : ".PP\n") + ".RS 4\n.nf\n" + lines.map { escapeLine($0) + "\n" }.joined() + ".fi\n.RE\n"
                    fence = nil
                }
                else { flush(); fence = [] }
                continue
            }
            if fence != nil { fence?.append(line); continue }
            if line.trimmingSpacesAndTabs.isEmpty { flush(); if !out.isEmpty, !out.hasSuffix(".PP\n") { out += ".PP\n" }; continue }
            if line.hasPrefix("- ") { flush(); out += ".IP \\(bu 2\n"; paragraph.append(String(line.dropFirst(2))); continue }
            paragraph.append(line.trimmingSpacesAndTabs)
        }
        flush()
        while out.hasSuffix(".PP\n") { out.removeLast(4) }
        return out
    }

    /// One paragraph of inline markdown: `code` and **bold** in bold, [links](…) as their text.
    static func text(_ markdown: String) -> String {
        var out = ""
        var bold = false
        var rest = Substring(markdown)
        while let c = rest.first {
            if c == "`" || rest.hasPrefix("**") {
                bold.toggle(); out += bold ? "\\fB" : "\\fR"; rest = rest.dropFirst(c == "`" ? 1 : 2); continue
            }
            if c == "[", let close = rest.firstIndex(of: "]"), rest[rest.index(after: close)...].hasPrefix("("),
               let end = rest[close...].firstIndex(of: ")") {
                out += escape(String(rest[rest.index(after: rest.startIndex)..<close])); rest = rest[rest.index(after: end)...]; continue
            }
            out += escape(String(c)); rest = rest.dropFirst()
        }
        if bold { out += "\\fR" }
        return wrap(out)
    }

    /// Input lines of at most 78 bytes (long ones are hard to diff and mandoc's lint flags them).
    private static func wrap(_ text: String) -> String {
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ", omittingEmptySubsequences: true) {
            if !line.isEmpty, line.utf8.count + 1 + word.utf8.count > 78 { lines.append(line); line = "" }
            line += (line.isEmpty ? "" : " ") + word
        }
        lines.append(line)
        return lines.map(escapeLineStart).joined(separator: "\n")
    }

    /// Backslashes, dashes and the characters the man fonts lack.
    static func escape(_ text: String) -> String {
        var out = ""
        for c in text {
            switch c {
            case "\\": out += "\\e"
            case "-": out += "\\-"
            case "…": out += "..."
            case "—", "–": out += "\\(em"
            case "→": out += "\\(->"
            case "’", "‘": out += "'"
            case "“", "”": out += "\""
            default:
                if c.isASCII { out.append(c) } else { out += c.unicodeScalars.map { "\\[u" + hex4($0.value) + "]" }.joined() }
            }
        }
        return out
    }

    private static func escapeLine(_ line: String) -> String { escapeLineStart(escape(line)) }

    /// A line starting with `.` or `'` would be read as a request.
    private static func escapeLineStart(_ line: String) -> String { line.hasPrefix(".") || line.hasPrefix("'") ? "\\&" + line : line }

    private static func hex4(_ v: UInt32) -> String {
        let digits = String(v, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}
