import IngestCore

/// Endpoints of adapters the core tests stand in for: the core itself declares only `capture`.
extension Endpoint {
    static let photos = Endpoint("photos")
    static let calendar = Endpoint("calendar")
    static let health = Endpoint("health")
}
