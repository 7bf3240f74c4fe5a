/// One line of `doctor`: what was looked at, what was found, and the fix in one sentence.
public struct DoctorCheck: Sendable, Equatable {
    public enum Status: String, Sendable, Comparable {
        case ok, warn, fail
        public static func < (a: Status, b: Status) -> Bool { a.rank < b.rank }
        private var rank: Int { self == .ok ? 0 : self == .warn ? 1 : 2 }
    }

    public var status: Status
    /// What was checked: "node", "state database", "photos (adapter photos): Path".
    public var subject: String
    /// What was found, one sentence.
    public var finding: String
    /// How to put it right, one sentence; nil for `ok`.
    public var fix: String?

    public static func ok(_ subject: String, _ finding: String) -> DoctorCheck {
        DoctorCheck(status: .ok, subject: subject, finding: finding, fix: nil)
    }
    public static func warn(_ subject: String, _ finding: String, fix: String) -> DoctorCheck {
        DoctorCheck(status: .warn, subject: subject, finding: finding, fix: fix)
    }
    public static func fail(_ subject: String, _ finding: String, fix: String) -> DoctorCheck {
        DoctorCheck(status: .fail, subject: subject, finding: finding, fix: fix)
    }

    /// The same check about another subject (an adapter's check, prefixed with its instance).
    public func about(_ subject: String) -> DoctorCheck { var c = self; c.subject = subject; return c }
}
