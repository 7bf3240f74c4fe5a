import Foundation
import IngestCore
import Testing

/// The visits and trips a scripted day should give (fixtures/gpsd/make-day.py writes them beside
/// the NMEA log, from the script's own legs), and the check of what reached the test node.
struct ExpectedDay: Decodable {
    struct Visit: Decodable { var name: String; var arrival: Double; var departure: Double?; var lat: Double; var lon: Double }
    struct Trip: Decodable { var name: String; var start: Double; var end: Double; var mode: String; var distance_m: Double }
    var visits: [Visit]
    var trips: [Trip]
    var radius_m: Double
    var warmup_s: Int

    init(contentsOf path: String) throws {
        self = try JSONDecoder().decode(ExpectedDay.self, from: Data(contentsOf: URL(fileURLWithPath: path)))
    }

    static func time(_ value: JSONValue?) -> Double? {
        guard let text = value?.stringValue else { return nil }
        return ISO8601DateFormatter().date(from: text)?.timeIntervalSince1970
    }

    static func metres(_ lat1: Double, _ lon1: Double, _ lat2: Double, _ lon2: Double) -> Double {
        let x = (lon2 - lon1) * .pi / 180 * cos((lat1 + lat2) * .pi / 360), y = (lat2 - lat1) * .pi / 180
        return (x * x + y * y).squareRoot() * 6_371_008.8
    }

    /// The node's visits and trips against the script: stay points reach up to radius / speed
    /// (≤ 72 s walking) past the scripted times, plus one fix interval; trips lose about a radius
    /// at each end.
    func check(_ node: TestNode, officeOpen: Bool, fixInterval: Double = 1, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let time = ExpectedDay.time
        let slack = 74 + fixInterval
        let visits = try node.items("location").sorted { (time($0["item"]?["arrival"]) ?? 0) < (time($1["item"]?["arrival"]) ?? 0) }
        #expect(visits.count == self.visits.count, "visits at the node: \(visits)", sourceLocation: sourceLocation)
        for (got, want) in zip(visits, self.visits) {
            let item = try #require(got["item"], sourceLocation: sourceLocation)
            #expect(abs(try #require(time(item["arrival"]), sourceLocation: sourceLocation) - want.arrival) <= slack, "\(want.name) arrival", sourceLocation: sourceLocation)
            if let departure = want.departure {
                #expect(abs((time(item["departure"]) ?? 0) - departure) <= slack, "\(want.name) departure", sourceLocation: sourceLocation)
            } else if officeOpen {
                #expect(item["departure"] == .null, "\(want.name) is still open", sourceLocation: sourceLocation)
            }
            let distance = ExpectedDay.metres(item["lat"]?.doubleValue ?? 0, item["lon"]?.doubleValue ?? 0, want.lat, want.lon)
            #expect(distance < 10, "\(want.name) position", sourceLocation: sourceLocation)
            #expect((item["accuracy_m"]?.doubleValue ?? 0) > 0 && (item["accuracy_m"]?.doubleValue ?? 99) < 8, "\(want.name) spread of ±4 m noise",
                    sourceLocation: sourceLocation)
        }
        let trips = try node.items("motion").sorted { (time($0["item"]?["start"]) ?? 0) < (time($1["item"]?["start"]) ?? 0) }
        #expect(trips.map { $0["item"]?["mode"]?.stringValue ?? "" } == self.trips.map(\.mode), sourceLocation: sourceLocation)
        for (got, want) in zip(trips, self.trips) {
            let distance = got["item"]?["distance_m"]?.doubleValue ?? 0
            #expect(abs(distance - (want.distance_m - 2 * radius_m)) < 0.1 * want.distance_m, "\(want.name) distance \(distance)", sourceLocation: sourceLocation)
        }
    }
}
