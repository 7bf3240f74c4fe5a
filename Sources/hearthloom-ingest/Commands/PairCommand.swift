import IngestCore

enum PairCommand {
    static let command = Command(
        name: "pair",
        usage: "pair 'hearthloom://pair?url=…&pat=…' | pair --url URL --token-file FILE",
        summary: "Pair with a node: verify it and the token, then keep them.",
        details: """
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
            let urlText: String
            let token: Secret
            if let link = args.positionals.first {
                guard args.positionals.count == 1, args.value("url") == nil, args.value("token-file") == nil else {
                    throw AgentError(.usage, "give either a pairing link or --url with --token-file")
                }
                let parsed = try PairingLink(link)
                urlText = parsed.url; token = parsed.token
            } else {
                guard let url = args.value("url"), let file = args.value("token-file") else {
                    throw AgentError(.usage, "give a pairing link, or --url URL --token-file FILE")
                }
                urlText = url
                do throws(ConfigError) { token = try Credentials.readSecret(FileSystem.expandPath(file), checkMode: true, what: "token") } catch { throw .config(error) }
            }
            let result = try Pairing.pair(urlText: urlText, token: token, paths: agent.paths)
            var line = "paired with \(result.url)"
            if let v = result.nodeVersion { line += " (node \(v))" }
            if let k = result.keyName { line += " as key \(k)" }
            line += result.captureKeyMinted ? "; captures use their own capture-only key" : "; captures use the device token"
            Terminal.writeStdout(line + "\n")
            return .ok
        })
}
