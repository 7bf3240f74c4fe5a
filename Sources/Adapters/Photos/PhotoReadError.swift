import Glibc

/// Why a file's metadata could not be read, as one line fit for a log or a UI.
///
/// Reasons name the structure and the offending offset (in hex, as hex dumps show it),
/// e.g. "IFD0 offset 0x7fff0000 points outside the file (size 1234)".
public struct PhotoReadError: Error, Sendable, CustomStringConvertible {
    public var reason: String

    public init(_ reason: String) {
        self.reason = reason
    }

    public var description: String { reason }

    /// An error for a failed system call, carrying the C library's message for `errno`.
    static func system(_ what: String, errno code: Int32) -> PhotoReadError {
        PhotoReadError("\(what): \(String(cString: strerror(code)))")
    }
}

extension Int {
    /// "0x1a2b": offsets in reasons are written the way hex dumps show them.
    var hex: String { "0x" + String(self, radix: 16) }
}
