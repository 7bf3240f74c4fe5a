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

    @Test func fieldsWrittenInKeyOrderMakeTheSameItemAsTheDictionary() {
        var written = ItemFields(key: "photo:1")
        written.add("a_first", true)
        written.addObject("camera") { camera in
            camera.add("make", "Canon")
            camera.add("model", "EOS \"R6\"")
        }
        written.addObject("file", unversioned: true) { file in
            file.add("name", "IMG_1.JPG")
            file.add("size", Int64(100))
        }
        written.add("lat", 52.5)
        written.add("lon", 13.25)
        written.add("taken_at", "2024-05-01T12:00:03+02:00")
        written.add("zz_last", "after the version")
        var expected = fields.filter { $0.value != .null }
        expected["zz_last"] = "after the version"
        let item = Item(endpoint: .photos, fields: written)
        let dictionary = Item(endpoint: .photos, key: "photo:1", fields: expected, unversioned: ["file"])
        #expect(String(decoding: item.json, as: UTF8.self) == String(decoding: dictionary.json, as: UTF8.self))
        #expect(item == dictionary)
        #expect(item.fields == expected.mapValues { $0 == .double(100) ? .int(100) : $0 })
    }

    @Test(arguments: [true, false])
    func keyAndVersionGoWhereTheySortWhateverFieldsThereAre(versioned: Bool) {
        let cases: [[(StaticString, String)]] = [[], [("a", "1")], [("zz", "2")], [("a", "1"), ("lat", "2"), ("zz", "3")], [("key_b", "x"), ("vz", "y")]]
        for members in cases {
            var written = ItemFields(key: "k", versioned: versioned)
            for (name, value) in members { written.add(name, value) }
            let dictionary = Item(endpoint: .photos, key: "k", versioned: versioned,
                                  fields: Dictionary(uniqueKeysWithValues: members.map { ("\($0.0)", JSONValue.string($0.1)) }))
            let item = Item(endpoint: .photos, fields: written)
            #expect(String(decoding: item.json, as: UTF8.self) == String(decoding: dictionary.json, as: UTF8.self))
            #expect(item.version == dictionary.version)
        }
    }
}

struct ItemTemplateTests {
    @Test func aTemplatesItemIsTheItemOfAllItsFields() {
        let shared: [String: JSONValue] = ["uid": "u", "title": "Team \"sync\"", "tzid": .null, "attendees": [["email": "a@b"]], "all_day": false, "zz": 1]
        let template = ItemTemplate(endpoint: .calendar, shared: shared, varying: ["end", "start"])
        let made = template.item(key: "u/20250101T090000Z", ["2025-01-01T10:00:00+01:00", "2025-01-01T09:00:00+01:00"])
        var fields = shared
        fields["end"] = "2025-01-01T10:00:00+01:00"
        fields["start"] = "2025-01-01T09:00:00+01:00"
        let plain = Item(endpoint: .calendar, key: "u/20250101T090000Z", fields: fields)
        #expect(made.version == plain.version)
        #expect(String(decoding: made.json, as: UTF8.self) == String(decoding: plain.json, as: UTF8.self))
        #expect(made.fields == plain.fields)
        #expect(made == plain)
        let withNull = template.item(key: "k", [.null, "2025-01-01"])
        #expect(withNull.fields["end"] == nil && withNull == Item(endpoint: .calendar, key: "k", fields: shared.merging(["start": "2025-01-01"]) { a, _ in a }))
    }

    /// What the calendar makes: shared fields in key order, start and end written as bytes.
    @Test func aTemplatesWrittenStringsItemIsTheItemOfAllItsFields() {
        let shared: [(key: String, value: JSONValue)] = [("all_day", false), ("title", "Team \"sync\""), ("uid", "u")]
        let template = ItemTemplate(endpoint: .calendar, sortedShared: shared, varying: ["end", "start"])
        let times = ["2025-01-01T10:00:00+01:00", "2025-01-01T09:00:00+01:00"]
        let made = template.item(key: "u/1") { index, out in out.append(contentsOf: times[index].utf8) }
        var fields = Dictionary(uniqueKeysWithValues: shared)
        fields["end"] = .string(times[0]); fields["start"] = .string(times[1])
        let plain = Item(endpoint: .calendar, key: "u/1", fields: fields)
        #expect(String(decoding: made.json, as: UTF8.self) == String(decoding: plain.json, as: UTF8.self))
        #expect(made.version == plain.version && made.fields == plain.fields && made == plain)
    }
}
