import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Log levels with their syslog/journald priority numbers.
public enum LogLevel: Int, Sendable, Comparable {
    case error = 3, warning = 4, notice = 5, info = 6, debug = 7
    public static func < (a: LogLevel, b: LogLevel) -> Bool { a.rawValue < b.rawValue }
    var word: String {
        switch self {
        case .error: "error"
        case .warning: "warning"
        case .notice: "notice"
        case .info: "info"
        case .debug: "debug"
        }
    }
}

/// Writes one line per message to stderr. Under systemd (stderr not a terminal) each line
/// starts with its journald priority prefix `<3>`…`<7>`; on a terminal it starts with the level word.
/// Secrets are never passed here: `Secret` prints as `<redacted>`.
public enum Log {
    private static let threshold = Atomic<Int>(LogLevel.notice.rawValue)
    static let stderrIsTerminal = isatty(2) == 1

    public static var level: LogLevel {
        get { LogLevel(rawValue: threshold.load(ordering: .relaxed)) ?? .notice }
        set { threshold.store(newValue.rawValue, ordering: .relaxed) }
    }

    public static func error(_ message: @autoclosure () -> String) { write(.error, message) }
    public static func warning(_ message: @autoclosure () -> String) { write(.warning, message) }
    public static func notice(_ message: @autoclosure () -> String) { write(.notice, message) }
    public static func info(_ message: @autoclosure () -> String) { write(.info, message) }
    public static func debug(_ message: @autoclosure () -> String) { write(.debug, message) }

    private static func write(_ lvl: LogLevel, _ message: () -> String) {
        guard lvl <= level else { return }
        let text = message().replacingNewlines()
        let line = stderrIsTerminal ? "\(lvl.word): \(text)\n" : "<\(lvl.rawValue)>\(text)\n"
        Terminal.writeStderr(line)
    }
}

/// Raw writes to the standard streams, unbuffered so a crash or kill loses no line.
public enum Terminal {
    public static func writeStderr(_ s: String) { write(2, s) }
    public static func writeStdout(_ s: String) { write(1, s) }
    public static var stderrIsTerminal: Bool { Log.stderrIsTerminal }

    static func write(_ fd: Int32, _ s: String) {
        let bytes = Array(s.utf8)
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { buf in Glibc.write(fd, buf.baseAddress! + offset, buf.count - offset) }
            if n < 0 { if errno == EINTR { continue }; return }
            offset += n
        }
    }
}

extension String {
    /// One log line stays one line, whatever a file or a node put in the message.
    func replacingNewlines() -> String {
        guard contains(where: { $0 == "\n" || $0 == "\r" }) else { return self }
        return String(map { $0 == "\n" || $0 == "\r" ? " " : $0 })
    }
}
