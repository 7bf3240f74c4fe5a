import Foundation
import Testing
@testable import Adapters

/// The byte-level JSON scanner: numbers without a String, escapes, skipped subtrees, lines.
struct JSONScannerTests {
    func number(_ text: String) -> Double? {
        Array(text.utf8).withUnsafeBufferPointer { JSONScanner.number($0) }
    }

    @Test func numbersMatchTheStandardLibrary() {
        for text in ["0", "-0.5", "120", "71.5", "4.184e1", "1E3", "0.1", "0.3", "1e-7", "2.5E+2", "123456789012345678",
                     "3.14159265358979323846", "1.7976931348623157e308", "5e-324", "0.000001234", " 42 ", "+7"] {
            #expect(number(text) == Double(text.trimmingCharacters(in: .whitespaces)), "\(text)")
        }
        for text in ["", "-", "abc", "1e", "--1", "nan", "inf", "1,5", "0x10", "1 2", "."] {
            #expect(number(text) == nil, "\(text)")
        }
    }

    @Test func stringsDecodeEscapesAndSurrogatePairs() throws {
        let json = Array(#"["a\"b\\c\/d\u00e9\ud83d\ude00\n", "plain", "lone \ud83d x"]"#.utf8)
        try json.withUnsafeBufferPointer { buffer in
            var s = JSONScanner(buffer)
            try s.enterArray()
            var out: [String] = []
            while try s.nextElement() { out.append(try s.string() ?? "") }
            #expect(out == ["a\"b\\c/d\u{E9}\u{1F600}\n", "plain", "lone \u{FFFD} x"])
        }
    }

    @Test func skippedSubtreesKeepLinesAndLeaveTheNextKeyReady() throws {
        let json = Array("{\"skip\": {\"a\": [1, \"]}\\\"\", {\"b\": null}],\n \"c\": true},\n\n \"want\": \"12.5\", \"n\": null}".utf8)
        try json.withUnsafeBufferPointer { buffer in
            var s = JSONScanner(buffer)
            try s.enterObject()
            var seen: [String] = []
            var want: Double?
            var nothing: Double? = 0
            while let key = try s.nextKey() {
                seen.append(s.decode(key, escaped: false))
                if s.key(key, is: "want") { want = try s.number() }
                else if s.key(key, is: "n") { nothing = try s.number() }
                else { try s.skipValue() }
            }
            #expect(seen == ["skip", "want", "n"])
            #expect(want == 12.5 && nothing == nil, "a number in a string is read; null is none")
            #expect(s.line == 4)
        }
    }

    @Test func runningOutOfBytesIsATruncationWithItsLine() {
        for text in ["{\"a\":\n[1, 2", "{\"a\": \"abc", "{\"a\": 12", "{\"a\"", "[tru"] {
            Array(text.utf8).withUnsafeBufferPointer { buffer in
                var s = JSONScanner(buffer)
                #expect(throws: JSONScanner.Failure.self) { try s.skipValue() }
            }
        }
        Array("{\"a\":\n[1, 2".utf8).withUnsafeBufferPointer { buffer in
            var s = JSONScanner(buffer)
            #expect(throws: JSONScanner.Failure.truncated(line: 2)) { try s.skipValue() }
        }
        Array("{\"a\" 1}".utf8).withUnsafeBufferPointer { buffer in
            var s = JSONScanner(buffer)
            #expect(throws: JSONScanner.Failure.syntax(line: 1, "expected ':', found '1'")) { try s.enterObject(); _ = try s.nextKey() }
        }
    }
}
