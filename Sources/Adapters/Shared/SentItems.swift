/// The keys and versions a group's items went out with (a health day's, location history's
/// visits and trips): `key\tversion` lines, kept as the group's settled state.
struct SentItems {
    var versions: [String: String] = [:]

    init() {}

    init(_ bytes: [UInt8]?) {
        for line in (bytes ?? []).split(separator: 0x0A) {
            let parts = line.split(separator: 0x09, maxSplits: 1, omittingEmptySubsequences: false)
            if parts.count == 2 { versions[String(decoding: parts[0], as: UTF8.self)] = String(decoding: parts[1], as: UTF8.self) }
        }
    }

    /// Written straight into one buffer of its final size: location history's settled state
    /// holds every visit and trip of years, and a String per line would hold each line again.
    var encoded: [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(versions.reduce(0) { $0 + $1.key.utf8.count + $1.value.utf8.count + 2 })
        for (key, version) in versions.sorted(by: { $0.key < $1.key }) {
            out.append(contentsOf: key.utf8)
            out.append(0x09)
            out.append(contentsOf: version.utf8)
            out.append(0x0A)
        }
        return out
    }
}
