import Foundation
@testable import Adapters

/// A scripted day at 1 Hz with ±4 m noise: home 30 min → walk 15 min at 1.4 m/s → café 40 min →
/// drive 20 min at 12 m/s → office 3 h. The expected visits and trips are written from the
/// script itself (start times, places, speeds), not from the code under test.
struct ScriptedDay {
    struct Leg { var seconds: Int; var speed: Double }     // speed 0: staying
    static let start = 1_717_225_200.0                     // 2024-06-01T07:00:00Z
    static let home = (lat: 52.520000, lon: 13.405000)
    static let legs = [Leg(seconds: 1800, speed: 0), Leg(seconds: 900, speed: 1.4), Leg(seconds: 2400, speed: 0),
                       Leg(seconds: 1200, speed: 12), Leg(seconds: 10800, speed: 0)]

    /// Where each stay is: moving legs head due east.
    static func place(after leg: Int) -> (lat: Double, lon: Double) {
        let metres = legs[..<leg].reduce(0.0) { $0 + Double($1.seconds) * $1.speed }
        return (home.lat, home.lon + metres / (111_320 * cos(home.lat * .pi / 180)))
    }

    static func fixes(reportSpeed: Bool = true) -> [Fix] {
        var rng: UInt64 = 42
        func noise() -> Double {        // uniform in [-1, 1), deterministic
            rng = rng &* 6364136223846793005 &+ 1442695040888963407
            return Double(rng >> 11) / Double(1 << 52) - 1
        }
        var fixes: [Fix] = []
        var t = start, east = 0.0
        for leg in legs {
            for _ in 0..<leg.seconds {
                let lat = home.lat + noise() * 4 / 111_320
                let lon = home.lon + (east + noise() * 4) / (111_320 * cos(home.lat * .pi / 180))
                fixes.append(Fix(time: t, latitude: lat, longitude: lon, altitude: 40, error: 6,
                                 speed: reportSpeed ? Float(max(0, leg.speed + noise() * 0.2)) : nil))
                t += 1; east += leg.speed
            }
        }
        return fixes
    }
}
