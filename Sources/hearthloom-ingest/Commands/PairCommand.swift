import IngestCore

enum PairCommand {
    static let command = Command(
        name: "pair",
        usage: "pair - | pair | pair --url URL --token-file FILE | pair LINK",
        summary: "Pair with a node: verify it and the token, then keep them.",
        details: """
            `pair -` reads the pairing link (hearthloom://pair?url=…&pat=…) from stdin; `pair` alone on a
            terminal asks for it without echo. Either keeps the token out of `ps`, /proc/PID/cmdline and
            the shell's history, which a link given as an argument is not (it still works, with a warning).
            Checks GET /v1/health and GET /v1/whoami before anything is kept, then stores the URL in
            node.conf, the token in $CONFIG/token (0600) and, where the node allows, a capture-only key
            in $CONFIG/capture-key (0600); with TokenStore=keyring in node.conf, both go to the desktop keyring. Pairing with a different node makes the next run send everything.
            Exit codes: 2 malformed link, 3 URL not allowed or token file readable by others, 4 node unreachable or token refused.
            """,
        options: [
            OptionSpec(long: "url", value: "URL", help: "the node's base URL (with --token-file)"),
            OptionSpec(long: "token-file", value: "FILE", help: "a file holding the token (mode 0600)", completes: .file),
        ],
        run: { args, agent throws(AgentError) in
            let (urlText, token) = try pairingTarget(args)
            let result = try Pairing.pair(urlText: urlText, token: token, paths: agent.paths)
            var line = "paired with \(result.url)"
            if let v = result.nodeVersion { line += " (node \(v))" }
            if let k = result.keyName { line += " as key \(k)" }
            line += result.captureKeyMinted ? "; captures use their own capture-only key" : "; captures use the device token"
            Terminal.writeStdout(line + "\n")
            return .ok
        })

    /// The node URL and token, from stdin, the terminal, a token file or (warned) an argument.
    private static func pairingTarget(_ args: ParsedArguments) throws(AgentError) -> (url: String, token: Secret) {
        let byFile = args.value("url") != nil || args.value("token-file") != nil
        guard args.positionals.count <= 1, !(byFile && !args.positionals.isEmpty) else {
            throw AgentError(.usage, "give one of: `pair -` (link on stdin), a pairing link, or --url with --token-file")
        }
        if byFile {
            guard let url = args.value("url"), let file = args.value("token-file") else {
                throw AgentError(.usage, "--url and --token-file go together")
            }
            do throws(ConfigError) {
                return (url, try Credentials.readSecret(FileSystem.expandPath(file), checkMode: true, what: "token"))
            } catch { throw .config(error) }
        }
        let link: String
        switch args.positionals.first {
        case "-" where !StandardInput.isTerminal:
            link = StandardInput.readAll().trimmingWhitespace
        case "-", nil:
            guard StandardInput.isTerminal, let typed = StandardInput.readLineWithoutEcho(prompt: "Pairing link (not shown): ") else {
                throw AgentError(.usage, "no pairing link: give `pair -` with the link on stdin, or --url URL --token-file FILE")
            }
            link = typed.trimmingWhitespace
        case let argument?:
            Log.warning("the pairing link's token is visible to every local user in `ps` while pair runs, and stays in your shell history; prefer `pair -` with the link on stdin")
            link = argument
        }
        let parsed = try PairingLink(link)
        return (parsed.url, parsed.token)
    }
}
