import Foundation
import Testing
@testable import IngestCore

struct FileSystemTests {
    /// Callers size their reads by `limit` (a 4-byte magic number, a 4 KiB head); the buffer's
    /// spare byte for seeing growth must not leak a byte past it.
    @Test func readBytes_neverReturnsMoreThanTheLimit() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("fs-\(UUID().uuidString.prefix(8))").path
        try Data("PK\u{3}\u{4}and the rest of a zip".utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(try FileSystem.readBytes(path, limit: 4) == [0x50, 0x4B, 0x03, 0x04])
        #expect(try FileSystem.readBytes(path, from: 2, limit: 2) == [0x03, 0x04])
        #expect(try FileSystem.readBytes(path, limit: 1000).count == 25)
    }
}
