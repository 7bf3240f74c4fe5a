import IngestCore

/// The filter and stay-point keys every place adapter (gpsd, geoclue, location-history) reads,
/// with one set of names and defaults, so a visit means the same whatever its source.
enum PlaceKeys {
    static let maxError = ConfigKey("MaxError", .number, default: "100", "drop fixes with a larger horizontal error (metres)")
    static let maxSpeed = ConfigKey("MaxSpeed", .number, default: "300", "drop fixes implying a faster move (metres per second)")
    static let radius = ConfigKey("Radius", .number, default: "100", "a stay keeps within this distance of where it began (metres)")
    static let minStay = ConfigKey("MinStay", .duration, default: "5min", "the shortest stay that is a visit")
    static let maxGap = ConfigKey("MaxGap", .duration, default: "15min", "a longer gap between fixes ends a stay, unless BridgeGap bridges it")
    static let bridgeGap = ConfigKey("BridgeGap", .duration, default: "24h",
                                     "a stay goes on across a silence up to this long when the next fix is back within Radius")
    static let keepFixes = ConfigKey("KeepFixes", .duration, default: "30d", "how long fixes are kept for resync")

    /// The detector and filter keys; `keepFixes` only for adapters that journal live fixes.
    static let detectorKeys: [any ConfigKeyProtocol] = [maxError, maxSpeed, radius, minStay, maxGap, bridgeGap]
}

extension PlaceTracker.Settings {
    /// The settings a section gives through `PlaceKeys` (KeepFixes where the adapter lists it).
    init(section s: ConfigSection) throws(ConfigError) {
        func positive(_ key: ConfigKey<Double>) throws(ConfigError) -> Double {
            try s.value(key, where: { $0 > 0 }, else: { _ in "must be more than 0" })
        }
        self.init()
        maxError = try positive(PlaceKeys.maxError)
        maxSpeed = try positive(PlaceKeys.maxSpeed)
        detector.radius = try positive(PlaceKeys.radius)
        detector.minStay = s[PlaceKeys.minStay]
        detector.maxGap = s[PlaceKeys.maxGap]
        detector.bridgeGap = s[PlaceKeys.bridgeGap]
        keepFixes = s[PlaceKeys.keepFixes]
    }
}
