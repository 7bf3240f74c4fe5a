/// What a UTC day group is settled with: the key and version of each item that went out under
/// the day (a visit under its arrival's day, a trip under its start's), and, for a day with
/// records, where the detector stood after the day's points (its anchor, from which a derivation
/// of the following days resumes) and the points each tagged device stored on the day.
struct HistoryDayState {
    var sent = SentItems()
    /// nil: no fix yet (a day before the first fix keeps an empty state). A store whose days were
    /// derived before anchors were recorded has no `derivation` state, and is derived whole.
    var anchor: Double?
    var devices: [Int64: Int] = [:]

    static let anchorLine = "#anchor", devicesLine = "#devices"

    init() {}

    init(_ bytes: [UInt8]?) {
        sent = SentItems(bytes)
        anchor = sent.versions.removeValue(forKey: HistoryDayState.anchorLine).flatMap { Double($0) }
        for pair in (sent.versions.removeValue(forKey: HistoryDayState.devicesLine) ?? "").split(separator: " ") {
            let parts = pair.split(separator: "=")
            if parts.count == 2, let tag = Int64(parts[0]), let n = Int(parts[1]) { devices[tag] = n }
        }
    }

    var encoded: [UInt8] {
        var lines = sent
        if let anchor { lines.versions[HistoryDayState.anchorLine] = "\(anchor)" }
        if !devices.isEmpty {
            lines.versions[HistoryDayState.devicesLine] = devices.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        }
        return lines.encoded
    }
}

/// What the `derivation` group is settled with: the settings the day states were derived under
/// (other settings make other visits, so every day is derived again), and the stated visits the
/// OwnTracks region events made (an event pairs with one in any other day, so these are made
/// from every day's events, and the days of those that came or went are derived again).
struct HistoryDerivationState: Equatable {
    var settings: String
    var regionStays: [StatedVisit]

    static let group = "derivation"

    init(settings: String, regionStays: [StatedVisit]) { self.settings = settings; self.regionStays = regionStays }

    init?(_ bytes: [UInt8]?) {
        guard let bytes else { return nil }
        var lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        guard !lines.isEmpty else { return nil }
        settings = String(lines.removeFirst())
        regionStays = lines.compactMap { line in
            let f = line.split(separator: " ").compactMap { Double($0) }
            return f.count == 4 ? StatedVisit(start: f[0], end: f[1], latitude: f[2], longitude: f[3]) : nil
        }
    }

    var encoded: [UInt8] {
        Array(([settings] + regionStays.map { "\($0.start) \($0.end) \($0.latitude) \($0.longitude)" }).joined(separator: "\n").utf8)
    }

    /// The settings that shape visits and trips, as text.
    static func settings(_ places: HistoryPlaces) -> String {
        let s = places.settings, d = s.detector
        return "v1 \(d.radius) \(d.minStay) \(d.maxGap) \(d.bridgeGap) \(s.maxError) \(s.maxSpeed) "
            + places.devices.picked.sorted().map(String.init).joined(separator: ",") + " \(places.devices.zone.name)"
    }
}
