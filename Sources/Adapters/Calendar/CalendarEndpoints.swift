import IngestCore

extension Endpoint {
    /// Events (VEVENT), docs/node-api.md.
    static let calendar = Endpoint("calendar")
    /// Tasks (VTODO).
    static let reminders = Endpoint("reminders")
}
