@testable import Adapters

/// The byte-level JSON scanners: `JSONScanner` (Health Auto Export) walking every value and
/// decoding every string and number, and `JSONArrayElements` (Fitbit, Google Fit).
enum JSONScannerHarness {
    static func run(_ bytes: [UInt8]) {
        bytes.withUnsafeBufferPointer { buffer in
            var scanner = JSONScanner(buffer)
            try? walk(&scanner, depth: 0)
        }
        // The same, streamed in 7-byte reads into a 32-byte window that grows for long values.
        if var streamed = try? JSONScanner(stream: ChunkedByteStream(bytes, chunk: 7), blockSize: 16) { try? walk(&streamed, depth: 0) }
        _ = try? JSONArrayElements.scan(ChunkedByteStream(bytes, chunk: 7)) { _, _ in }
        _ = try? JSONArrayElements.scan(ChunkedByteStream(bytes), key: "data") { _, _ in }
    }

    /// Every value, as the readers meet them; past a depth the rest is skipped as they skip it.
    static func walk(_ s: inout JSONScanner, depth: Int) throws(JSONScanner.Failure) {
        guard depth < 64 else { return try s.skipValue() }
        switch try s.peek() {
        case .object:
            try s.enterObject()
            while let key = try s.nextKey() {
                _ = s.key(key, is: "data")
                try walk(&s, depth: depth + 1)
            }
        case .array:
            try s.enterArray()
            while try s.nextElement() { try walk(&s, depth: depth + 1) }
        case .string: _ = try s.string()
        case .number: _ = try s.number()
        case .literal: try s.skipValue()
        }
    }
}
