import CSystemd
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

extension DeviceIdentity {
    /// The hearthloom application id for `sd_id128_get_machine_app_specific`: a fixed random UUID.
    private static let appID: [UInt8] = [0x5b, 0x1e, 0x9c, 0x3a, 0x47, 0xd2, 0x4f, 0x0b, 0x9a, 0x61, 0x2c, 0x88, 0xe4, 0x17, 0x00, 0x00]

    /// The device as the node sees it: stable per machine and user, never revealing
    /// `/etc/machine-id` (an HMAC of it, keyed per application and user, as systemd recommends).
    /// Without a machine id (some containers), a random id kept in the state store.
    public static func current(store: StateStore?) -> DeviceIdentity {
        let name = hostName()
        var app = sd_id128_t()
        withUnsafeMutableBytes(of: &app) { dst in
            for i in 0..<16 { dst[i] = appID[i] }
            let uid = getuid()                                    // per user: the last two bytes carry the uid
            dst[14] ^= UInt8(truncatingIfNeeded: uid >> 8)
            dst[15] ^= UInt8(truncatingIfNeeded: uid)
        }
        var out = sd_id128_t()
        if csystemd_machine_app_specific(app, &out) == 0 {
            return DeviceIdentity(id: withUnsafeBytes(of: out) { Digest.hex($0) }, name: name)
        }
        if let saved = try? store?.meta("device_id") { return DeviceIdentity(id: saved, name: name) }
        let fresh = Digest.hex(Digest.randomBytes(16))
        try? store?.setMeta("device_id", fresh)
        return DeviceIdentity(id: fresh, name: name)
    }

    static func hostName() -> String {
        var buf = [CChar](repeating: 0, count: 256)
        guard gethostname(&buf, buf.count) == 0 else { return "linux" }
        return String(decoding: buf.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
