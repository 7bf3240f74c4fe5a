import CSDBus
import IngestCore
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// A value read from a D-Bus message. Variants are unwrapped; object paths and signatures read as strings.
enum BusValue: Sendable, Equatable {
    case string(String)
    case int(Int64)
    case uint(UInt64)
    case double(Double)
    case bool(Bool)
    case array([BusValue])
    case dict([String: BusValue])
    case structure([BusValue])

    var text: String? { if case .string(let s) = self { return s }; return nil }
    /// Any numeric type as a Double: players send `mpris:length` as x, t, i or even d.
    var number: Double? {
        switch self {
        case .int(let i): Double(i)
        case .uint(let u): Double(u)
        case .double(let d): d.isFinite ? d : nil
        default: nil
        }
    }
    var dict: [String: BusValue]? { if case .dict(let d) = self { return d }; return nil }
}

/// A failed sd-bus call, with the D-Bus error name when the peer sent one.
struct BusError: Error, Sendable, CustomStringConvertible {
    /// The sd-bus function that failed.
    var function: String
    /// A negative errno, as sd-bus returns it.
    var code: Int32
    /// `org.freedesktop.DBus.Error.ServiceUnknown` and the like, from a peer's error reply.
    var name: String?
    var message: String?

    /// The connection itself is gone (the bus daemon quit or was restarted): reconnect. A peer's
    /// error reply carries a name and is never this.
    var isDisconnect: Bool { name == nil && [ECONNRESET, ENOTCONN, EPIPE, ESHUTDOWN, ECONNREFUSED, ENOENT].contains(-code) }

    var description: String {
        let reason = message ?? String(cString: strerror(-code))
        return "\(function): \(reason)" + (name.map { " (\($0))" } ?? "")
    }

    static let unavailable = BusError(function: "dlopen libsystemd.so.0", code: -ENOSYS, message: "libsystemd with sd-bus is not installed")
}

/// A signal that arrived on the bus.
struct BusSignal: Sendable {
    var sender: String
    var path: String
    var interface: String
    var member: String
    var arguments: [BusValue]
}

/// What `nextMessage` found: a signal, or the answer to a call made with `send`.
enum BusMessage: Sendable {
    case signal(BusSignal)
    case reply(cookie: UInt64, Result<[BusValue], BusError>)
}

/// An argument of a method call.
enum BusArgument: Sendable {
    case string(String)
    case uint32(UInt32)
    /// An object path (`o`), as `Manager.DeleteClient` takes.
    case objectPath(String)
    indirect case variant(BusArgument)
}

/// One connection to a D-Bus bus: the user's session bus (`$DBUS_SESSION_BUS_ADDRESS`) or the
/// system bus (`$DBUS_SYSTEM_BUS_ADDRESS`, else /run/dbus/system_bus_socket). It owns the
/// `sd_bus *` from `init` to `deinit` and is used from one thread only, as sd-bus requires. The
/// mpris, focus and geoclue adapters share it.
///
/// No C type leaves this file: messages are read into `BusValue`s, failures become `BusError`s.
final class BusConnection {
    enum Kind: String, Sendable { case session, system }

    /// The bus daemon's own name (and interface).
    static let daemon = "org.freedesktop.DBus"

    /// What a message may make us hold: a peer's strings and lists are capped while they are read.
    static let maxStringBytes = 8192
    static let maxElements = 512
    static let maxDepth = 8

    let kind: Kind
    private let api: UnsafePointer<csdbus_api_t>
    private let bus: OpaquePointer

    /// Connects; the D-Bus `Hello` happens on the first call.
    init(_ kind: Kind) throws(BusError) {
        guard let api = csdbus() else { throw .unavailable }
        var bus: OpaquePointer?
        let rc = kind == .session ? api.pointee.open_user(&bus) : api.pointee.open_system(&bus)
        guard rc >= 0, let bus else { throw BusError(function: kind == .session ? "sd_bus_open_user" : "sd_bus_open_system", code: rc) }
        self.kind = kind; self.api = api; self.bus = bus
    }

    deinit { _ = api.pointee.flush_close_unref(bus) }

    /// The socket to poll, and the events sd-bus waits for on it (POLLOUT while it has queued writes).
    var fileDescriptor: Int32 { api.pointee.get_fd(bus) }
    var pollEvents: Int16 { Int16(truncatingIfNeeded: max(0, api.pointee.get_events(bus))) }

    /// Asks the bus daemon to route signals matching `rule` to us (`AddMatch`, synchronous).
    func addMatch(_ rule: String) throws(BusError) {
        let rc = api.pointee.add_match(bus, nil, rule, nil, nil)
        if rc < 0 { throw BusError(function: "sd_bus_add_match", code: rc, message: "AddMatch \(rule) refused") }
    }

    /// Calls a method with string arguments and returns the reply's values.
    func call(_ destination: String, _ path: String, _ interface: String, _ member: String,
              _ arguments: [String] = [], timeout seconds: Double = 2) throws(BusError) -> [BusValue] {
        try call(destination, path, interface, member, arguments: arguments.map { .string($0) }, timeout: seconds)
    }

    /// Calls a method and waits at most `seconds` for the reply's values.
    func call(_ destination: String, _ path: String, _ interface: String, _ member: String,
              arguments: [BusArgument], timeout seconds: Double = 2) throws(BusError) -> [BusValue] {
        let message = try methodCall(destination, path, interface, member, arguments)
        defer { _ = api.pointee.message_unref(message) }
        var error = sd_bus_error()
        defer { api.pointee.error_free(&error) }
        var reply: OpaquePointer?
        let rc = api.pointee.call(bus, message, UInt64(seconds * 1_000_000), &error, &reply)
        guard rc >= 0, let reply else {
            throw BusError(function: "\(interface).\(member) on \(destination)", code: rc,
                           name: error.name.map { String(cString: $0) }, message: error.message.map { String(cString: $0) })
        }
        defer { _ = api.pointee.message_unref(reply) }
        return try readAll(reply)
    }

    /// Sends a method call without waiting: its reply comes out of `nextMessage` with the cookie
    /// returned here, however long the peer takes.
    func send(_ destination: String, _ path: String, _ interface: String, _ member: String,
              arguments: [BusArgument] = []) throws(BusError) -> UInt64 {
        let message = try methodCall(destination, path, interface, member, arguments)
        defer { _ = api.pointee.message_unref(message) }
        var cookie: UInt64 = 0
        let rc = api.pointee.send(bus, message, &cookie)
        if rc < 0 { throw BusError(function: "sd_bus_send \(interface).\(member) to \(destination)", code: rc) }
        return cookie
    }

    private func methodCall(_ destination: String, _ path: String, _ interface: String, _ member: String,
                            _ arguments: [BusArgument]) throws(BusError) -> OpaquePointer {
        var message: OpaquePointer?
        let rc = api.pointee.new_method_call(bus, &message, destination, path, interface, member)
        guard rc >= 0, let message else { throw BusError(function: "sd_bus_message_new_method_call", code: rc) }
        do {
            for argument in arguments { try append(argument, to: message) }
        } catch {
            _ = api.pointee.message_unref(message)
            throw error
        }
        return message
    }

    private func append(_ argument: BusArgument, to message: OpaquePointer) throws(BusError) {
        let rc: Int32
        switch argument {
        case .string(let text):
            rc = text.withCString { api.pointee.append_basic(message, CChar(UInt8(ascii: "s")), $0) }
        case .uint32(var number):
            rc = api.pointee.append_basic(message, CChar(UInt8(ascii: "u")), &number)
        case .objectPath(let path):
            rc = path.withCString { api.pointee.append_basic(message, CChar(UInt8(ascii: "o")), $0) }
        case .variant(let inner):
            let signature = switch inner { case .string: "s"; case .uint32: "u"; case .objectPath: "o"; case .variant: "v" }
            try check(api.pointee.open_container(message, CChar(UInt8(ascii: "v")), signature), "sd_bus_message_open_container")
            try append(inner, to: message)
            rc = api.pointee.close_container(message)
        }
        if rc < 0 { throw BusError(function: "sd_bus_message_append", code: rc) }
    }

    /// Processes what has arrived until a signal is found; nil when nothing is left to read.
    /// Replies to `send` are dropped: use `nextMessage` for those.
    /// - Throws: a `BusError` whose `isDisconnect` is true once the connection is gone.
    func nextSignal() throws(BusError) -> BusSignal? {
        while let message = try nextMessage() {
            if case .signal(let signal) = message { return signal }
        }
        return nil
    }

    /// Processes what has arrived until a signal or a reply is found; nil when nothing is left to read.
    /// - Throws: a `BusError` whose `isDisconnect` is true once the connection is gone.
    func nextMessage() throws(BusError) -> BusMessage? {
        while true {
            var message: OpaquePointer?
            let rc = api.pointee.process(bus, &message)
            if rc < 0 { throw BusError(function: "sd_bus_process", code: rc) }
            guard let message else {
                if rc == 0 { return nil }
                continue                                        // sd-bus handled something itself (Hello, a reply)
            }
            defer { _ = api.pointee.message_unref(message) }
            var type: UInt8 = 0
            guard api.pointee.get_type(message, &type) >= 0 else { continue }
            switch type {
            case UInt8(SD_BUS_MESSAGE_SIGNAL):
                let signal = BusSignal(sender: string(api.pointee.get_sender(message)), path: string(api.pointee.get_path(message)),
                                       interface: string(api.pointee.get_interface(message)), member: string(api.pointee.get_member(message)),
                                       arguments: try readAll(message))
                // sd-bus reports a lost connection as a local signal before its calls start failing.
                if signal.interface == "org.freedesktop.DBus.Local" && signal.member == "Disconnected" {
                    throw BusError(function: "sd_bus_process", code: -ECONNRESET, message: "the \(kind.rawValue) bus went away")
                }
                return .signal(signal)
            case UInt8(SD_BUS_MESSAGE_METHOD_RETURN), UInt8(SD_BUS_MESSAGE_METHOD_ERROR):
                var cookie: UInt64 = 0
                guard api.pointee.get_reply_cookie(message, &cookie) >= 0 else { continue }
                if let error = api.pointee.get_error(message) {
                    return .reply(cookie: cookie, .failure(BusError(function: "a call", code: -EIO, name: error.pointee.name.map { String(cString: $0) },
                                                                    message: error.pointee.message.map { String(cString: $0) })))
                }
                return .reply(cookie: cookie, .success(try readAll(message)))
            default:
                continue
            }
        }
    }

    /// A call to one peer: nil when the peer went away or answered with an error (its error is
    /// not ours); a lost connection is thrown.
    static func unlessGone<T>(_ call: () throws(BusError) -> T) throws(BusError) -> T? {
        do { return try call() } catch {
            if error.isDisconnect { throw error }
            Log.debug("bus: \(error)")
            return nil
        }
    }

    private func string(_ pointer: UnsafePointer<CChar>?) -> String { pointer.map { String(cString: $0) } ?? "" }

    // MARK: - Reading messages

    private func check(_ rc: Int32, _ function: String) throws(BusError) {
        if rc < 0 { throw BusError(function: function, code: rc, message: "malformed message") }
    }

    private func readAll(_ message: OpaquePointer) throws(BusError) -> [BusValue] {
        var values: [BusValue] = []
        while let value = try readValue(message, depth: 0) { values.append(value) }
        return values
    }

    /// The next value of the current container, or nil at its end.
    private func readValue(_ m: OpaquePointer, depth: Int) throws(BusError) -> BusValue? {
        var type: CChar = 0
        var contents: UnsafePointer<CChar>?
        let rc = api.pointee.peek_type(m, &type, &contents)
        try check(rc, "sd_bus_message_peek_type")
        if rc == 0 { return nil }
        let code = UInt8(bitPattern: type)
        switch code {
        case UInt8(ascii: "s"), UInt8(ascii: "o"), UInt8(ascii: "g"):
            var text: UnsafePointer<CChar>?
            try check(api.pointee.read_basic(m, type, &text), "sd_bus_message_read_basic")
            guard let text else { return .string("") }
            let length = strnlen(text, BusConnection.maxStringBytes)
            return .string(text.withMemoryRebound(to: UInt8.self, capacity: length) {
                String(decoding: UnsafeBufferPointer(start: $0, count: length), as: UTF8.self)
            })
        case UInt8(ascii: "b"):
            var flag: Int32 = 0
            try check(api.pointee.read_basic(m, type, &flag), "sd_bus_message_read_basic")
            return .bool(flag != 0)
        case UInt8(ascii: "d"):
            var d = 0.0
            try check(api.pointee.read_basic(m, type, &d), "sd_bus_message_read_basic")
            return .double(d)
        case UInt8(ascii: "y"), UInt8(ascii: "n"), UInt8(ascii: "q"), UInt8(ascii: "i"), UInt8(ascii: "u"),
             UInt8(ascii: "x"), UInt8(ascii: "t"), UInt8(ascii: "h"):
            var raw: UInt64 = 0                                 // read_basic writes the type's own width
            try check(api.pointee.read_basic(m, type, &raw), "sd_bus_message_read_basic")
            return integer(raw, code)
        case UInt8(ascii: "v"), UInt8(ascii: "a"), UInt8(ascii: "r"), UInt8(ascii: "e"):
            try check(api.pointee.enter_container(m, type, contents), "sd_bus_message_enter_container")
            defer { _ = api.pointee.exit_container(m) }
            guard depth < BusConnection.maxDepth else { _ = api.pointee.skip(m, nil); return .structure([]) }
            if code == UInt8(ascii: "v") { return try readValue(m, depth: depth + 1) ?? .structure([]) }
            var elements: [BusValue] = []
            while elements.count < BusConnection.maxElements, let element = try readValue(m, depth: depth + 1) { elements.append(element) }
            if elements.count == BusConnection.maxElements { try check(api.pointee.skip(m, nil), "sd_bus_message_skip") }
            guard code == UInt8(ascii: "a") else { return .structure(elements) }
            if contents.map({ $0.pointee == CChar(UInt8(ascii: "{")) }) == true {
                var dict: [String: BusValue] = [:]
                for case .structure(let entry) in elements where entry.count == 2 {
                    if let key = entry[0].text { dict[key] = entry[1] }
                }
                return .dict(dict)
            }
            return .array(elements)
        default:
            try check(api.pointee.skip(m, nil), "sd_bus_message_skip")
            return nil
        }
    }

    private func integer(_ raw: UInt64, _ code: UInt8) -> BusValue {
        switch code {
        case UInt8(ascii: "y"): .int(Int64(UInt8(truncatingIfNeeded: raw)))
        case UInt8(ascii: "n"): .int(Int64(Int16(truncatingIfNeeded: raw)))
        case UInt8(ascii: "q"): .int(Int64(UInt16(truncatingIfNeeded: raw)))
        case UInt8(ascii: "i"), UInt8(ascii: "h"): .int(Int64(Int32(truncatingIfNeeded: raw)))
        case UInt8(ascii: "u"): .int(Int64(UInt32(truncatingIfNeeded: raw)))
        case UInt8(ascii: "x"): .int(Int64(bitPattern: raw))
        default: .uint(raw)
        }
    }
}
