import FoundationEssentials
import IngestCore

/// Visits and trips as the node's `location` and `motion` items (docs/node-api.md).
enum PlaceItems {
    static func item(_ event: VisitDetector.Event) -> Item {
        switch event {
        case .opened(let visit), .closed(let visit): return item(visit)
        case .trip(let trip): return item(trip)
        }
    }

    static func item(_ v: Visit) -> Item {
        Item(endpoint: .location, key: v.key, fields: [
            "arrival": .string(time(v.arrival)),
            "departure": v.departure.map { .string(time($0)) } ?? .null,
            "lat": .double(rounded(v.latitude, 7)), "lon": .double(rounded(v.longitude, 7)),
            "accuracy_m": .double(v.accuracy), "fixes": .int(Int64(v.fixes)),
        ], keepingNull: ["arrival", "departure"])   // an open visit is sent with `departure: null`
    }

    static func item(_ t: Trip) -> Item {
        Item(endpoint: .motion, key: t.key, fields: [
            "start": .string(time(t.start.time)), "end": .string(time(t.end.time)),
            "mode": .string(t.mode.rawValue), "distance_m": .double(t.distance),
            "from": ["lat": .double(rounded(t.start.latitude, 6)), "lon": .double(rounded(t.start.longitude, 6))],
            "to": ["lat": .double(rounded(t.end.latitude, 6)), "lon": .double(rounded(t.end.longitude, 6))],
        ])
    }

    static func time(_ t: Double) -> String { Date(timeIntervalSince1970: t.rounded()).rfc3339 }

    static func rounded(_ v: Double, _ digits: Int) -> Double {
        var scale = 1.0
        for _ in 0..<digits { scale *= 10 }
        return (v * scale).rounded() / scale
    }
}
