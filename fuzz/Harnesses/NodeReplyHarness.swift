@testable import IngestCore

/// A node's answer to a batch: status, Retry-After and JSON body, as `NodeClient.reply` reads them.
enum NodeReplyHarness {
    /// The statuses `reply` tells apart, and one it does not.
    static let statuses = [200, 201, 400, 401, 403, 404, 413, 429, 503, 500]

    /// Byte 0 picks the status, the first line after it is Retry-After, the rest is the body.
    static func run(_ bytes: [UInt8]) {
        guard let first = bytes.first else { return }
        let rest = bytes.dropFirst()
        let newline = rest.firstIndex(of: 0x0A) ?? rest.endIndex
        let retryAfter = String(decoding: rest[..<newline], as: UTF8.self)
        let body = Array(rest[newline...].dropFirst())
        let response = HTTPResponse(status: statuses[Int(first) % statuses.count], headers: ["retry-after": retryAfter], body: body)
        _ = NodeClient.reply(response, expectedItems: 3)
    }
}
