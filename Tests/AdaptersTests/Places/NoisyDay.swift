import Foundation
@testable import Adapters

/// A seeded day as a history export records it: a fix every 10–60 s with a few metres of
/// Gaussian noise and no receiver speed; stays of 20 min to 2 h joined by walks (1.4 m/s) or
/// drives (12 m/s) of 8–20 min in a random direction; one stay has a 10-minute hole in its fixes
/// and one walk a one-minute stop. The expected stays are the script's, not the detector's.
struct NoisyDay {
    struct Stay { var arrival: Double; var departure: Double; var latitude: Double; var longitude: Double }
    struct Leg { var seconds: Double; var speed: Double; var bearing: Double }

    static let start = 1_717_225_200.0                     // 2024-06-01T07:00:00Z
    var fixes: [Fix] = []
    var stays: [Stay] = []
    var moves: [Trip.Mode] = []

    private var rng: UInt64
    private var t = NoisyDay.start
    private var position = (lat: 47.3769, lon: 8.5417)

    init(seed: UInt64, stays count: Int = 6) {
        rng = seed &* 0x9E37_79B9_7F4A_7C15 | 1
        let gappedStay = Int(uniform() * Double(count)), stoppingWalk = Int(uniform() * Double(count - 1))
        for i in 0..<count {
            stay(seconds: 1200 + uniform() * 6000, gap: i == gappedStay)
            guard i < count - 1 else { break }
            let drive = uniform() < 0.4
            move(Leg(seconds: 480 + uniform() * 720, speed: drive ? 12 : 1.4, bearing: uniform() * 2 * .pi),
                 stopping: !drive && i == stoppingWalk)
            moves.append(drive ? .driving : .walking)
        }
    }

    mutating func uniform() -> Double {
        rng = rng &* 6364136223846793005 &+ 1442695040888963407
        return Double(rng >> 11) / Double(1 << 53)
    }

    /// Box–Muller, σ = 4 m.
    mutating func noise() -> Double { (-2 * log(max(uniform(), 1e-12))).squareRoot() * cos(2 * .pi * uniform()) * 4 }

    mutating func record() {
        let metresPerDegree = 111_320.0
        let lat = position.lat + noise() / metresPerDegree
        let lon = position.lon + noise() / (metresPerDegree * cos(position.lat * .pi / 180))
        fixes.append(Fix(time: t.rounded(), latitude: lat, longitude: lon, error: Float(5 + uniform() * 15)))
    }

    mutating func stay(seconds: Double, gap: Bool) {
        let arrival = t, end = t + seconds
        while t < end {
            record()
            t += gap && t > arrival + 300 && t < arrival + 360 ? 600 : 10 + uniform() * 50
        }
        stays.append(Stay(arrival: arrival, departure: end, latitude: position.lat, longitude: position.lon))
    }

    mutating func move(_ leg: Leg, stopping: Bool) {
        let end = t + leg.seconds, stopAt = t + leg.seconds / 2
        var stopped = !stopping
        while t < end {
            var step = 10 + uniform() * 50
            if !stopped, t >= stopAt { stopped = true; record(); t += 60; continue }   // one minute standing still
            step = min(step, end - t)
            t += step
            let metres = step * leg.speed
            position.lat += metres * cos(leg.bearing) / 111_320
            position.lon += metres * sin(leg.bearing) / (111_320 * cos(position.lat * .pi / 180))
            record()
        }
    }
}
