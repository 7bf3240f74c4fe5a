import IngestCore

extension Endpoint {
    /// Where this adapter's items go (docs/node-api.md).
    static let photos = Endpoint("photos")
}
