import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// One position report (gpsd, geoclue, a history export), as kept in the journal: 36 bytes packed.
struct Fix: Sendable, Equatable {
    var time: Double            // seconds since the epoch, UTC, the fix's own time
    var latitude: Double
    var longitude: Double
    var altitude: Float?        // metres above mean sea level
    var error: Float?           // horizontal error estimate, metres
    var speed: Float?           // over ground, metres per second, as the receiver measured it

    static let packedSize = 36

    /// This fix completed by a later report of the same epoch: its values win where it has them.
    func refined(by later: Fix) -> Fix {
        Fix(time: time, latitude: later.latitude, longitude: later.longitude, altitude: later.altitude ?? altitude,
            error: later.error ?? error, speed: later.speed ?? speed)
    }

    func pack(into out: inout [UInt8]) {
        withUnsafeBytes(of: time.bitPattern.littleEndian) { out.append(contentsOf: $0) }
        withUnsafeBytes(of: latitude.bitPattern.littleEndian) { out.append(contentsOf: $0) }
        withUnsafeBytes(of: longitude.bitPattern.littleEndian) { out.append(contentsOf: $0) }
        for value in [altitude, error, speed] {
            withUnsafeBytes(of: (value ?? .nan).bitPattern.littleEndian) { out.append(contentsOf: $0) }
        }
    }

    /// The fixes of one journal chunk; a torn tail (a chunk cut mid-fix) is ignored.
    static func unpack(_ bytes: [UInt8]) -> [Fix] {
        var fixes: [Fix] = []
        fixes.reserveCapacity(bytes.count / packedSize)
        bytes.withUnsafeBytes { raw in
            var at = 0
            func u64() -> UInt64 { defer { at += 8 }; return UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: at, as: UInt64.self)) }
            func f32() -> Float? {
                defer { at += 4 }
                let v = Float(bitPattern: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: at, as: UInt32.self)))
                return v.isNaN ? nil : v
            }
            while at + packedSize <= raw.count {
                let time = Double(bitPattern: u64()), lat = Double(bitPattern: u64()), lon = Double(bitPattern: u64())
                fixes.append(Fix(time: time, latitude: lat, longitude: lon, altitude: f32(), error: f32(), speed: f32()))
            }
        }
        return fixes
    }
}

/// Distances on the WGS 84 sphere approximation: an equirectangular projection around the
/// first point, within 0.1 % of haversine at the ≤ 10 km scale visits and trip steps need.
enum Geo {
    static let earthRadius = 6_371_008.8

    static func distance(_ a: Fix, _ b: Fix) -> Double {
        distance(a.latitude, a.longitude, b.latitude, b.longitude)
    }

    static func distance(_ lat1: Double, _ lon1: Double, _ lat2: Double, _ lon2: Double) -> Double {
        let dLat = (lat2 - lat1) * .pi / 180
        var dLon = (lon2 - lon1) * .pi / 180
        if dLon > .pi { dLon -= 2 * .pi } else if dLon < -.pi { dLon += 2 * .pi }
        let x = dLon * cos((lat1 + lat2) * .pi / 360)
        return (x * x + dLat * dLat).squareRoot() * earthRadius
    }
}
