import CCurl
import FoundationEssentials

/// A libcurl failure: one line with curl's own words; never the URL's secrets (we put none there).
public struct CurlError: Error, Sendable, CustomStringConvertible {
    public var code: Int32
    public var message: String
    public var description: String { message }
    /// No connection could be made: the node is down or the name does not resolve.
    public var isConnectFailure: Bool {
        [CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_CONNECT, CURLE_COULDNT_RESOLVE_PROXY].contains { $0.rawValue == code }
    }
    /// The node's certificate was not trusted: retrying cannot help, and verification is never turned off.
    public var isTLSVerification: Bool {
        [CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CACERT_BADFILE, CURLE_SSL_CERTPROBLEM].contains { $0.rawValue == code }
    }
}

public struct HTTPResponse: Sendable {
    public var status: Int
    /// Lower-cased names.
    public var headers: [String: String]
    public var body: [UInt8]
}

/// One libcurl easy handle, reused for every request so the connection stays alive.
/// One owner, freed once; not Sendable, so it stays on one task (the gate's).
public final class CurlEasy {
    private let handle: OpaquePointer
    private let box = ResponseBox()

    public struct Options: Sendable {
        public var caFile: String?
        public var connectTimeout: Double = 10
        public var timeout: Double = 60
        public var userAgent: String
        /// A node has no reason to send megabytes back; a larger reply is cut off as an error.
        public var maxResponseBytes = 4 << 20
        public init(caFile: String? = nil, userAgent: String) { self.caFile = caFile; self.userAgent = userAgent }
    }

    public init(_ options: Options) throws(CurlError) {
        box.maxBody = options.maxResponseBytes
        guard let h = ccurl_easy_init() else {
            throw CurlError(code: -1, message: "cannot load libcurl.so.4 (install libcurl4)")
        }
        handle = OpaquePointer(h)
        ccurl_setopt_long(raw, CURLOPT_NOSIGNAL, 1)
        ccurl_setopt_long(raw, CURLOPT_FOLLOWLOCATION, 0)              // never carry the token to another host
        ccurl_setopt_string(raw, CURLOPT_PROTOCOLS_STR, "http,https")
        ccurl_setopt_long(raw, CURLOPT_SSL_VERIFYPEER, 1)              // verification may not be turned off
        ccurl_setopt_long(raw, CURLOPT_SSL_VERIFYHOST, 2)
        ccurl_setopt_long(raw, CURLOPT_TCP_KEEPALIVE, 1)
        ccurl_setopt_long(raw, CURLOPT_CONNECTTIMEOUT_MS, Int(options.connectTimeout * 1000))
        ccurl_setopt_long(raw, CURLOPT_TIMEOUT_MS, Int(options.timeout * 1000))
        ccurl_setopt_string(raw, CURLOPT_USERAGENT, options.userAgent)
        ccurl_setopt_string(raw, CURLOPT_ACCEPT_ENCODING, "")
        if let ca = options.caFile { ccurl_setopt_string(raw, CURLOPT_CAINFO, ca) }
        ccurl_setopt_write(raw, CURLOPT_WRITEFUNCTION) { ptr, size, count, user in
            let n = size * count
            guard let ptr, let user else { return 0 }
            let box = Unmanaged<ResponseBox>.fromOpaque(user).takeUnretainedValue()
            guard box.body.count + n <= box.maxBody else { return 0 }
            ptr.withMemoryRebound(to: UInt8.self, capacity: n) { box.body.append(contentsOf: UnsafeBufferPointer(start: $0, count: n)) }
            return n
        }
        ccurl_setopt_write(raw, CURLOPT_HEADERFUNCTION) { ptr, size, count, user in
            let n = size * count
            guard let ptr, let user else { return 0 }
            let box = Unmanaged<ResponseBox>.fromOpaque(user).takeUnretainedValue()
            let line = ptr.withMemoryRebound(to: UInt8.self, capacity: n) { String(decoding: UnsafeBufferPointer(start: $0, count: n), as: UTF8.self) }
            if line.hasPrefix("HTTP/") { box.headers = [:] }   // a 100 Continue or proxy reply came first
            if let colon = line.firstIndex(of: ":") {
                let name = line[..<colon].lowercased()
                box.headers[name] = String(line[line.index(after: colon)...]).trimmingSpacesAndTabs.trimmingNewline
            }
            return n
        }
        let user = Unmanaged.passUnretained(box).toOpaque()
        ccurl_setopt_pointer(raw, CURLOPT_WRITEDATA, user)
        ccurl_setopt_pointer(raw, CURLOPT_HEADERDATA, user)
    }

    private var raw: UnsafeMutableRawPointer { UnsafeMutableRawPointer(handle) }

    /// Performs one request. `body` nil means GET.
    public func perform(url: String, headers: [String], body: [UInt8]?) throws(CurlError) -> HTTPResponse {
        box.body.removeAll(keepingCapacity: true)
        box.headers = [:]
        ccurl_setopt_string(raw, CURLOPT_URL, url)
        var list: OpaquePointer? = nil
        for h in headers + ["Expect:"] { list = OpaquePointer(ccurl_slist_append(UnsafeMutablePointer(list), h)) }
        defer { ccurl_slist_free_all(UnsafeMutablePointer(list)) }
        ccurl_setopt_slist(raw, CURLOPT_HTTPHEADER, UnsafeMutablePointer(list))
        let code: CURLcode
        if let body {
            code = body.withUnsafeBytes { buf in
                ccurl_setopt_long(raw, CURLOPT_POST, 1)
                ccurl_setopt_long(raw, CURLOPT_POSTFIELDSIZE, buf.count)
                ccurl_setopt_pointer(raw, CURLOPT_POSTFIELDS, UnsafeMutableRawPointer(mutating: buf.baseAddress ?? UnsafeRawPointer(bitPattern: 1)!))
                let rc = ccurl_easy_perform(raw)
                ccurl_setopt_pointer(raw, CURLOPT_POSTFIELDS, nil)   // the buffer is gone after this closure
                return rc
            }
        } else {
            ccurl_setopt_long(raw, CURLOPT_HTTPGET, 1)
            code = ccurl_easy_perform(raw)
        }
        guard code == CURLE_OK else { throw CurlError(code: Int32(code.rawValue), message: String(cString: ccurl_easy_strerror(code))) }
        var status = 0
        ccurl_getinfo_long(raw, CURLINFO_RESPONSE_CODE, &status)
        return HTTPResponse(status: status, headers: box.headers, body: box.body)
    }

    /// An HTTP date (`Retry-After: Wed, 21 Oct 2026 07:28:00 GMT`), parsed by `curl_getdate`.
    public static func parseHTTPDate(_ text: String) -> Date? {
        let t = ccurl_getdate(text)
        return t < 0 ? nil : Date(timeIntervalSince1970: Double(t))
    }

    deinit { ccurl_easy_cleanup(raw) }
}

/// Where libcurl's callbacks put the reply; reused across requests.
private final class ResponseBox {
    var maxBody = 0
    var body: [UInt8] = []
    var headers: [String: String] = [:]
}

extension String {
    var trimmingNewline: String {
        var s = Substring(self)
        while let l = s.last, l == "\r\n" || l == "\n" || l == "\r" || l == " " { s = s.dropLast() }
        return String(s)
    }
}
