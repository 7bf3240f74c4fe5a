import Foundation
import Testing
@testable import Adapters

/// The CSV row reader: RFC 4180, the same rows however the stream is cut, a file many blocks
/// long, and a quote left open.
struct CSVRowsTests {
    static let text = Array("\u{FEFF}a,\"b,\"\"c\"\"\",d\r\n\r\n1,\"two\nlines\",3\n\"\",,\n".utf8)
    static let expected: [([String], Int)] = [(["a", "b,\"c\"", "d"], 1), (["1", "two\nlines", "3"], 3), (["", "", ""], 5)]

    func all(_ rows: inout CSVRows) throws -> [([String], Int)] {
        var out: [([String], Int)] = []
        while let row = try rows.next() { out.append((row.fields, row.line)) }
        return out
    }

    @Test func rowsFollowRFC4180() throws {
        var rows = CSVRows(Self.text)
        let got = try all(&rows)
        #expect(got.map(\.0) == Self.expected.map(\.0))
        #expect(got.map(\.1) == Self.expected.map(\.1), "the blank line is skipped, the quoted line break counted")
        #expect(CSVRows(Array("a;b,c;d\n".utf8)).delimiter == UInt8(ascii: ";"))
        #expect(CSVRows(Array("\"a;b\",c\n".utf8)).delimiter == UInt8(ascii: ","))
    }

    @Test(arguments: 1...7) func aStreamCutAnywhereGivesTheSameRows(chunk: Int) throws {
        var rows = CSVRows(MemoryByteStream(Self.text, chunk: chunk))
        let got = try all(&rows)
        #expect(got.map(\.0) == Self.expected.map(\.0))
        #expect(got.map(\.1) == Self.expected.map(\.1))
    }

    /// Rows of two physical lines each (a quoted line break), CRLF, across 3 MiB: blocks end
    /// inside fields, quotes and line ends.
    @Test func aFileManyBlocksLongIsReadWhole() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("csvrows-\(getpid()).csv").path
        defer { unlink(path) }
        let count = 100_000
        var text = "n,note,double\r\n"
        for i in 0..<count { text += "\(i),\"row \(i)\nsecond \"\"line\"\"\",\(i * 2)\r\n" }
        #expect(text.utf8.count > 3 * BlockReader.blockSize)
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        var rows = CSVRows(try FileByteStream(path: path))
        #expect(try rows.next()?.fields == ["n", "note", "double"])
        var seen = 0
        while let row = try rows.next() {
            guard row.fields == ["\(seen)", "row \(seen)\nsecond \"line\"", "\(seen * 2)"], row.line == 2 + 2 * seen else {
                Issue.record("row \(seen): \(row.fields) at line \(row.line)"); return
            }
            seen += 1
        }
        #expect(seen == count)
    }

    @Test func aQuoteLeftOpenIsOneErrorNamingItsLine() throws {
        let text = Array(("h1,h2\n1,2\n3,\"" + String(repeating: "x", count: 3 << 20) + "\n4,5\n").utf8)
        var rows = CSVRows(MemoryByteStream(text, chunk: 1 << 16))
        #expect(try rows.next()?.fields == ["h1", "h2"])
        #expect(try rows.next()?.fields == ["1", "2"])
        #expect(throws: FileReadError("line 3: a row runs past 1 MiB (a quote left open?)")) { _ = try rows.next() }
    }
}
