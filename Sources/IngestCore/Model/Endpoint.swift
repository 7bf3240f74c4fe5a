/// The node's ingest endpoints (`POST /v1/ingest/<endpoint>`), see docs/node-api.md.
public enum Endpoint: String, CaseIterable, Sendable, Codable, Comparable {
    case location, motion, photos, contacts, calendar, reminders, media, health, scan, focus, capture

    public static func < (a: Endpoint, b: Endpoint) -> Bool { a.rawValue < b.rawValue }
}

extension Dictionary where Key == Endpoint, Value == Int {
    /// `capture 2, photos 10`, sorted by endpoint; `empty` when there is nothing.
    public func summary(empty: String) -> String {
        isEmpty ? empty : sorted { $0.key < $1.key }.map { "\($0.key.rawValue) \($0.value)" }.joined(separator: ", ")
    }
}
