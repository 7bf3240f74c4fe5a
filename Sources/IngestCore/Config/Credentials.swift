import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// The device token and the optional capture key, read from their files.
public struct Credentials: Sendable {
    public var token: Secret
    public var captureKey: Secret?

    /// systemd's `LoadCredential=hearthloom.token:…` puts the token here; it wins over `TokenFile=`.
    public static let systemdCredentialName = "hearthloom.token"

    /// Reads the token (and capture key, when its file exists).
    /// - Throws: `ConfigError` when the token file is missing, empty, or readable by others.
    public static func load(_ node: NodeConfig, environment: (String) -> String? = FileSystem.environment) throws(ConfigError) -> Credentials {
        var tokenFile = node.tokenFile
        var fromSystemd = false
        if let dir = environment("CREDENTIALS_DIRECTORY"), !dir.isEmpty {
            let candidate = dir.appendingPath(systemdCredentialName)
            if FileSystem.exists(candidate) { tokenFile = candidate; fromSystemd = true }
        }
        // systemd's credentials folder is private to the service, whatever the file's own mode.
        let token = try readSecret(tokenFile, checkMode: !fromSystemd, what: "token")
        let captureKey = FileSystem.exists(node.captureKeyFile) ? try readSecret(node.captureKeyFile, checkMode: true, what: "capture key") : nil
        return Credentials(token: token, captureKey: captureKey)
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
        let value = text.split(whereSeparator: \.isNewline).first.map { String($0).trimmed } ?? ""
        guard !value.isEmpty else { throw ConfigError(file: path, "the \(what) file is empty") }
        return Secret(value)
    }
}
