/// The node's ingest endpoints (`POST /v1/ingest/<endpoint>`), see docs/node-api.md.
public enum Endpoint: String, CaseIterable, Sendable, Codable, Comparable {
    case location, motion, photos, contacts, calendar, reminders, media, health, scan, focus, capture

    public static func < (a: Endpoint, b: Endpoint) -> Bool { a.rawValue < b.rawValue }
}
