import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// The device token and the optional capture key, from their files or the desktop keyring.
public struct Credentials: Sendable {
    public var token: Secret
    public var captureKey: Secret?

    /// systemd's `LoadCredential=hearthloom.token:…` puts the token here; it wins over `TokenFile=`
    /// and `TokenStore=keyring`.
    public static let systemdCredentialName = "hearthloom.token"

    /// Where the token is read from, in the order that wins.
    public enum Source: Sendable, Equatable {
        case systemd(file: String)
        case keyring
        case file(String)
    }

    public static func source(_ node: NodeConfig, environment: (String) -> String? = FileSystem.environment) -> Source {
        if let dir = environment("CREDENTIALS_DIRECTORY"), !dir.isEmpty {
            let candidate = dir.appendingPath(systemdCredentialName)
            if FileSystem.exists(candidate) { return .systemd(file: candidate) }
        }
        return node.usesKeyring ? .keyring : .file(node.tokenFile)
    }

    /// Reads the token (and capture key, when there is one).
    /// - Throws: `AgentError` 3 when the token file is missing, empty or readable by others, or the
    ///   keyring holds no token; 4 when the keyring is locked, absent or does not answer.
    public static func load(_ node: NodeConfig, environment: (String) -> String? = FileSystem.environment) throws(AgentError) -> Credentials {
        switch source(node, environment: environment) {
        case .keyring:
            guard let url = node.url else { throw AgentError(.config, "\(node.file): TokenStore=keyring needs URL=") }
            guard let token = try Keyring.lookup(node: url, .token) else {
                throw AgentError(.config, "no token for \(url.origin) in the keyring; pair first (`hearthloom-ingest pair …`)")
            }
            return Credentials(token: token, captureKey: try Keyring.lookup(node: url, .captureKey))
        case .systemd(let file):
            // systemd's credentials folder is private to the service, whatever the file's own mode.
            return Credentials(token: try secret(file, checkMode: false, what: "token"), captureKey: try fileCaptureKey(node))
        case .file(let file):
            return Credentials(token: try secret(file, checkMode: true, what: "token"), captureKey: try fileCaptureKey(node))
        }
    }

    /// With the token from systemd, the capture key still comes from the store `pair` used; a
    /// keyring that cannot give it (locked) only means captures go with the device token.
    private static func fileCaptureKey(_ node: NodeConfig) throws(AgentError) -> Secret? {
        if node.usesKeyring, let url = node.url { return try? Keyring.lookup(node: url, .captureKey) }
        guard FileSystem.exists(node.captureKeyFile) else { return nil }
        return try secret(node.captureKeyFile, checkMode: true, what: "capture key")
    }

    private static func secret(_ path: String, checkMode: Bool, what: String) throws(AgentError) -> Secret {
        do { return try readSecret(path, checkMode: checkMode, what: what) } catch { throw .config(error) }
    }

    /// Reads a secret file, refusing one that group or others may read.
    public static func readSecret(_ path: String, checkMode: Bool, what: String) throws(ConfigError) -> Secret {
        let mode: mode_t
        do { mode = try FileSystem.mode(path) } catch {
            throw ConfigError(file: path, error.errno == ENOENT ? "no \(what) file; pair first (`hearthloom-ingest pair …`)" : error.message)
        }
        if checkMode && mode & 0o077 != 0 {
            throw ConfigError(file: path, "the \(what) file is readable by others (mode \(String(mode, radix: 8))); run `chmod 600 \(path)`")
        }
        let text: String
        do { text = try FileSystem.readText(path) } catch { throw ConfigError(file: path, error.message) }
        let value = text.split(whereSeparator: \.isNewline).first.map { String($0).trimmingSpacesAndTabs } ?? ""
        guard !value.isEmpty else { throw ConfigError(file: path, "the \(what) file is empty") }
        return Secret(value)
    }
}
