import IngestCore

/// node.conf and adapters.d/*.conf: systemd-style INI.
enum INIHarness {
    static func run(_ bytes: [UInt8]) {
        _ = try? INIFile(path: "fuzz.conf", text: String(decoding: bytes, as: UTF8.self))
    }
}
