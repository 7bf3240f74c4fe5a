import IngestCore

/// Endpoints of items these tests queue by hand; the adapters declare their own.
extension Endpoint {
    static let photos = Endpoint("photos")
    static let contacts = Endpoint("contacts")
}
