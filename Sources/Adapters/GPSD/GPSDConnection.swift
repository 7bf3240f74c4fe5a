import CGPS
import FoundationEssentials

/// One connection to gpsd through libgps, watching in JSON. Owns the `gps_data_t`; not Sendable:
/// it lives on the one thread that reads it.
final class GPSDConnection {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// What one read brought.
    enum Report {
        case fix(Fix)
        /// gpsd's VERSION, with its protocol version.
        case version(major: Int, minor: Int)
        /// An ERROR report from gpsd.
        case error
        /// Anything else (SKY, DEVICES, a TPV without a position).
        case other
    }

    private let data: UnsafeMutablePointer<gps_data_t>

    init(host: String, port: Int) throws(Failure) {
        guard let data = cgps_new() else { throw Failure(description: "out of memory") }
        let rc = cgps_open_watch(data, host, String(port))
        guard rc == 0 else {
            // Thrown before `self.data` is set, so deinit does not run and free it again.
            cgps_free(data)
            throw Failure(description: "cannot connect to gpsd at \(host):\(port): \(String(cString: cgps_errstr(rc)))")
        }
        self.data = data
    }

    deinit {
        cgps_close(data)
        cgps_free(data)
    }

    /// Waits up to `timeout` seconds for data, on the socket and `control`'s stop; false when none came.
    func waitForData(timeout: Double, control: LoopControl) -> Bool {
        // libgps may already hold a report it read with the previous one.
        if cgps_waiting(data, 0) != 0 { return true }
        control.wait(onReadable: [cgps_fd(data)], timeout: timeout)
        return cgps_waiting(data, 0) != 0
    }

    /// Reads one report; throws when the connection is gone or gpsd sent what libgps cannot parse.
    func read() throws(Failure) -> Report {
        var r = cgps_report_t()
        guard cgps_read(data, &r) >= 0 else { throw Failure(description: "gpsd closed the connection or sent garbage") }
        if r.has_version != 0 { return .version(major: Int(r.proto_major), minor: Int(r.proto_minor)) }
        if r.has_error != 0 { return .error }
        guard r.has_fix != 0, r.time > 0 else { return .other }
        let error = [r.eph, max(r.epx, r.epy)].first { $0.isFinite && $0 > 0 }
        return .fix(Fix(time: r.time, latitude: r.latitude, longitude: r.longitude,
                        altitude: r.altitude.isFinite ? Float(r.altitude) : nil, error: error.map(Float.init),
                        speed: r.speed.isFinite ? Float(r.speed) : nil))
    }
}
