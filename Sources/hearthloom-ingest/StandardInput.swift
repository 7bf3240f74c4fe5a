import IngestCore
#if canImport(Glibc)
import Glibc
#endif

/// What commands read from standard input: a capture's text, a pairing link.
enum StandardInput {
    /// Everything on stdin up to end of file.
    static func readAll() -> String {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(0, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            bytes.append(contentsOf: chunk[0..<n])
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    static var isTerminal: Bool { isatty(0) == 1 }

    /// One line typed on the terminal with echo off, so a secret never shows on screen or in
    /// the scrollback; the prompt goes to stderr. Echo is restored however the read ends, and on
    /// SIGINT/SIGTERM the terminal is restored before the process dies.
    static func readLineWithoutEcho(prompt: String) -> String? {
        var saved = termios()
        guard tcgetattr(0, &saved) == 0 else { return nil }
        var quiet = saved
        quiet.c_lflag &= ~tcflag_t(ECHO)
        quiet.c_lflag |= tcflag_t(ECHONL)
        EchoGuard.saved.pointee = saved
        signal(SIGINT, EchoGuard.restoreAndDie)
        signal(SIGTERM, EchoGuard.restoreAndDie)
        defer {
            tcsetattr(0, TCSAFLUSH, &saved)
            signal(SIGINT, SIG_DFL); signal(SIGTERM, SIG_DFL)
        }
        // Echo goes off before the prompt shows, so nothing typed after it can be echoed or flushed.
        guard tcsetattr(0, TCSAFLUSH, &quiet) == 0 else { return nil }
        Terminal.writeStderr(prompt)
        var line: [UInt8] = []
        var byte: UInt8 = 0
        while true {
            let n = read(0, &byte, 1)
            if n < 0 && errno == EINTR { continue }
            if n <= 0 || byte == UInt8(ascii: "\n") { break }
            line.append(byte)
        }
        return String(decoding: line, as: UTF8.self)
    }
}

/// The terminal settings to put back if the user interrupts a prompt without echo. They live in
/// memory of their own: a global `termios` is laid out shorter than the 60 bytes tcgetattr
/// writes (ASan: global-buffer-overflow), so a copy into one overran it.
private enum EchoGuard {
    nonisolated(unsafe) static let saved: UnsafeMutablePointer<termios> = {
        let memory = UnsafeMutablePointer<termios>.allocate(capacity: 1)
        memory.initialize(to: termios())
        return memory
    }()
    static let restoreAndDie: @convention(c) (Int32) -> Void = { signo in
        tcsetattr(0, TCSAFLUSH, EchoGuard.saved)
        signal(signo, SIG_DFL)
        raise(signo)
    }
}
