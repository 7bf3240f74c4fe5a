@testable import Adapters

/// A zipped Apple Health export: local headers (zip64 extras too), stored and deflated
/// entries, read through to the end of the wanted entry, whole and in small reads.
enum ZipEntryHarness {
    static func run(_ bytes: [UInt8]) {
        drain(ChunkedByteStream(bytes))
        drain(ChunkedByteStream(bytes, chunk: 5))
    }

    static func drain(_ file: ChunkedByteStream) {
        guard let entry = try? ZipEntryStream(file, wanted: { $0.hasSuffix("export.xml") }) else { return }
        var buffer = [UInt8](repeating: 0, count: 4096)
        while let n = try? buffer.withUnsafeMutableBytes({ (b) throws(FileReadError) in try entry.read(into: b) }), n > 0 {}
    }
}
