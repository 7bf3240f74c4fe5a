import CSecret
import FoundationEssentials

/// The device token and capture key in the desktop keyring (freedesktop Secret Service), for
/// `TokenStore=keyring`: items with application=hearthloom-ingest, node=<origin>, kind=token or
/// capture-key. Every call has a deadline and never asks to unlock, so a timer's run cannot hang
/// on a prompt: a locked or absent keyring is exit 4, with everything kept.
public enum Keyring {
    public enum Kind: String, Sendable { case token, captureKey = "capture-key" }

    /// How long one keyring call may take before the run gives up on it.
    public static let timeoutMS: Int32 = 5000

    /// The secret, or nil when the (open) keyring holds none for `node`.
    public static func lookup(node: NodeURL, _ kind: Kind) throws(AgentError) -> Secret? {
        var value: UnsafeMutablePointer<CChar>?
        var message: UnsafeMutablePointer<CChar>?
        let status = csecret_lookup(node.origin, kind.rawValue, timeoutMS, &value, &message)
        defer { csecret_free(value) }
        if status == Int32(CSECRET_NOT_FOUND) { csecret_free(message); return nil }
        try check(status, message)
        return value.map { Secret(String(cString: $0)) }
    }

    /// Stores (or replaces) the secret for `node`.
    public static func store(_ secret: Secret, node: NodeURL, _ kind: Kind) throws(AgentError) {
        var message: UnsafeMutablePointer<CChar>?
        let label = "Hearthloom ingest \(kind == .token ? "device token" : "capture key") for \(node.origin)"
        let status = secret.withValue { csecret_store(node.origin, kind.rawValue, label, $0, timeoutMS, &message) }
        try check(status, message)
    }

    /// Removes the secret for `node`, if there is one.
    public static func clear(node: NodeURL, _ kind: Kind) throws(AgentError) {
        var message: UnsafeMutablePointer<CChar>?
        try check(csecret_clear(node.origin, kind.rawValue, timeoutMS, &message), message)
    }

    /// Turns a status other than OK into the error the CLI prints; frees `message`.
    private static func check(_ status: Int32, _ message: UnsafeMutablePointer<CChar>?) throws(AgentError) {
        let detail = message.map { String(cString: $0) }
        csecret_free(message)
        let why = detail.map { " (\($0))" } ?? ""
        switch Int(status) {
        case Int(CSECRET_OK): return
        case Int(CSECRET_LOCKED):
            throw AgentError(.node, "keyring locked\(why): unlock your login keyring; nothing was sent and everything is kept")
        case Int(CSECRET_UNAVAILABLE):
            throw AgentError(.node, "keyring locked or absent: no Secret Service answers on the session bus\(why); everything is kept")
        case Int(CSECRET_TIMEOUT):
            throw AgentError(.node, "keyring locked or not answering: no reply within \(timeoutMS / 1000) s; everything is kept")
        default:
            throw AgentError(.node, "the keyring refused the request\(why); everything is kept")
        }
    }
}
