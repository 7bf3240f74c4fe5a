import Testing
@testable import IngestCore

struct ItemTests {
    let fields: [String: JSONValue] = [
        "lat": .double(52.5), "lon": .double(13.25), "taken_at": "2024-05-01T12:00:03+02:00", "altitude_m": .null,
        "camera": ["model": "EOS \"R6\"", "make": "Canon"], "file": ["name": "IMG_1.JPG", "size": 100], "a_first": true, "zz_last": [1, 2],
    ]

    @Test func theBodyIsTheSortedObjectWithKeyAndVersionAndNoNulls() {
        let item = Item(endpoint: .photos, key: "photo:1", fields: fields)
        var expected = fields
        expected["altitude_m"] = nil
        #expect(item.version == Digest.sha256Hex(JSONValue.object(expected).encoded, length: 16))
        expected["key"] = "photo:1"
        expected["version"] = .string(item.version!)
        #expect(String(decoding: item.json, as: UTF8.self) == String(decoding: JSONValue.object(expected).encoded, as: UTF8.self))
        #expect(String(decoding: item.json, as: UTF8.self).hasPrefix(#"{"a_first":true,"camera":{"make":"Canon","model":"EOS \"R6\""},"file":"#))
    }

    @Test func unversionedFieldsAreSentButDoNotChangeTheVersion() {
        var renamed = fields
        renamed["file"] = ["name": "holiday.jpg", "size": 100]
        let a = Item(endpoint: .photos, key: "k", fields: fields, unversioned: ["file"])
        let b = Item(endpoint: .photos, key: "k", fields: renamed, unversioned: ["file"])
        #expect(a.version == b.version)
        #expect(a.json != b.json)
        #expect(Item(endpoint: .photos, key: "k", fields: fields).version != Item(endpoint: .photos, key: "k", fields: renamed).version)
        #expect(Item(endpoint: .capture, key: "k", versioned: false, fields: ["text": "x"]).json == Array(#"{"key":"k","text":"x"}"#.utf8))
    }
}
