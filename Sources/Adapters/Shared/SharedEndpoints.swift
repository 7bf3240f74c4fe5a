import IngestCore

/// The endpoints more than one adapter sends to; an adapter's own are declared in its folder.
extension Endpoint {
    /// Visits and trips: gpsd, geoclue and location-history (through `Places`).
    static let location = Endpoint("location")
    /// Trips' modes of travel, with their visits.
    static let motion = Endpoint("motion")
    /// Plays: mpris and listening-history.
    static let media = Endpoint("media")
}
