/// `org.freedesktop.DBus.Properties`, through which mpris, focus and geoclue read and set what
/// services hold.
extension BusConnection {
    static let properties = "org.freedesktop.DBus.Properties"

    /// One property's value (`Properties.Get`); nil when the reply carries none.
    func property(_ destination: String, _ path: String, _ interface: String, _ name: String,
                  timeout seconds: Double = 2) throws(BusError) -> BusValue? {
        try call(destination, path, BusConnection.properties, "Get", [interface, name], timeout: seconds).first
    }

    /// Every property of `interface` in one call (`Properties.GetAll`).
    func properties(_ destination: String, _ path: String, _ interface: String) throws(BusError) -> [String: BusValue] {
        try call(destination, path, BusConnection.properties, "GetAll", [interface]).first?.dict ?? [:]
    }

    /// `Properties.Set`, waiting at most `seconds` for the service to take it.
    func setProperty(_ destination: String, _ path: String, _ interface: String, _ name: String, to value: BusArgument,
                     timeout seconds: Double = 2) throws(BusError) {
        _ = try call(destination, path, BusConnection.properties, "Set",
                     arguments: [.string(interface), .string(name), .variant(value)], timeout: seconds)
    }
}
