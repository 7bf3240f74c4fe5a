import Foundation
import IngestCore
import Testing
@testable import Adapters

/// The hand-written exports in fixtures/contacts/, each card's fields checked exactly as sent.
struct VCardFixtureTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("fixtures/contacts").path

    func parse(_ name: String) throws -> VCardParser.Result {
        VCardParser.parse(Array(try Data(contentsOf: URL(fileURLWithPath: VCardFixtureTests.fixtures + "/" + name))))
    }

    static func entry(_ value: String, _ type: String? = nil) -> JSONValue {
        type.map { ["value": .string(value), "type": .string($0)] } ?? ["value": .string(value)]
    }

    @Test func android21_quotedPrintableUTF8AndFoldedLinesAreReadExactly() throws {
        let result = try parse("android-2.1.vcf")
        #expect(result.problems.isEmpty)
        #expect(result.contacts.count == 4, "the AGENT's embedded card is not a contact of its own")
        let ayse = try #require(result.contacts.first)
        #expect(ayse.fields == [
            "full_name": "Ayşe Öztürk", "given": "Ayşe", "family": "Öztürk",
            "emails": [Self.entry("ayse@example.com.tr", "home")],
            "phones": [Self.entry("+90 532 555 01 23", "cell"), Self.entry("+90 212 555 44 55", "home")],
            "addresses": [["street": "İstiklal Caddesi 123, Beyoğlu", "city": "İstanbul", "postcode": "34433", "country": "Türkiye", "type": "home"]],
            "org": "Anatolia Trading, Export", "title": "Head of Sales", "birthday": "1985-07-04",
        ])
        #expect(ayse.key == "vcard:" + Digest.sha256Hex("Ayşe Öztürk\u{1F}ayse@example.com.tr", length: 32))

        #expect(result.contacts[1].fields == [
            "full_name": "Jürgen Müller", "given": "Jürgen", "family": "Müller",
            "emails": [Self.entry("juergen@example.de", "work")], "phones": [Self.entry("+49 30 1234567", "work,fax")], "addresses": [],
        ])
        #expect(result.contacts[2].fields == [
            "full_name": "François “Frank” Dupont", "given": "François", "family": "Dupont",
            "emails": [Self.entry("frank@example.fr")], "phones": [], "addresses": [],
        ], "2.1 without CHARSET that is not UTF-8 is Windows-1252")
        #expect(result.contacts[2].key == "outlook-0001")
        #expect(result.contacts[3].fields == [
            "full_name": "The Boss", "given": "The", "family": "Boss", "emails": [], "phones": [Self.entry("+1 555 0100", "work")], "addresses": [],
        ])
    }

    @Test func google30_itemGroupsLabelsAndAYearlessBirthday() throws {
        let result = try parse("google-3.0.vcf")
        #expect(result.problems.isEmpty)
        #expect(result.contacts.map(\.fields) == [
            [
                "full_name": "Anna-Lena O'Brien", "given": "Anna-Lena", "family": "O'Brien", "nicknames": ["Annie"],
                "emails": [Self.entry("anna@example.com", "home"), Self.entry("a.obrien@work.example", "work"), Self.entry("annie@club.example", "Running club")],
                "phones": [Self.entry("+353 87 123 4567", "cell"), Self.entry("+353 1 765 4321", "Grandma's")],
                "addresses": [["street": "12 Harbour Road, Flat 3", "city": "Dún Laoghaire", "region": "Co. Dublin", "postcode": "A96 X2Y3",
                               "country": "Ireland", "type": "home"]],
                "birthday": "--04-15", "org": "Lighthouse Labs", "title": "Engineer",
                "urls": ["https://annie.example"], "categories": ["Friends", "myContacts"],
            ],
            [
                "full_name": "Bob Smith", "given": "Bob", "family": "Smith",
                "emails": [Self.entry("bob@example.org", "home,work")], "phones": [Self.entry("+1 202 555 0147", "work")], "addresses": [],
                "birthday": "1980-02-29", "categories": ["myContacts"],
            ],
        ])
    }

    @Test func apple30_labelsOmittedYearFoldingAndEscapedSemicolon() throws {
        let result = try parse("apple-3.0.vcf")
        #expect(result.problems.isEmpty)
        #expect(result.contacts.map(\.key) == ["6B29FC40-CA47-1067-B31D-00DD010662DA", "apple-wilhelmina"])
        #expect(result.contacts.map(\.fields) == [
            [
                "full_name": "Dr. Haruki Nakamura", "given": "Haruki", "family": "Nakamura",
                "org": "Sakura Robotics, Research", "title": "Chief Scientist",
                "emails": [Self.entry("haruki@sakura.example", "other"), Self.entry("h.nakamura@research.sakura.example", "work")],
                "phones": [Self.entry("+81 3-5555-0101", "mobile"), Self.entry("+81 3-5555-0199", "home")],
                "addresses": [["street": "1-2-3 Shibuya\nApt 405", "city": "Shibuya-ku", "region": "Tokyo", "postcode": "150-0002",
                               "country": "Japan", "type": "home"]],
                "birthday": "--11-03", "urls": ["https://sakura.example/~haruki"],
            ],
            [
                "full_name": "Wilhelmina Constance Featherstonehaugh-Cholmondeley of the Royal Society of Edinburgh",
                "given": "Wilhelmina Constance", "family": "Featherstonehaugh-Cholmondeley", "title": "Fellow Emerita",
                "org": "Smith; Jones & Partners", "emails": [], "phones": [Self.entry("+44 131 555 0000", "work")], "addresses": [],
            ],
        ])
    }

    @Test func nextcloud40_telURIsQuotedTypeListsAndBirthdayForms() throws {
        let result = try parse("nextcloud-4.0.vcf")
        #expect(result.problems == ["card at line 27 (UID urn:uuid:0b1c2d3e-0000-4000-8000-000000000003): BDAY \"circa 1800\" on line 31 is not a date with a month and day; not sent"])
        #expect(result.contacts.map(\.key) == ["urn:uuid:4fbe8971-0bc3-424c-9c26-36c3e1eff6b1", "urn:uuid:0b1c2d3e-0000-4000-8000-000000000002",
                                               "urn:uuid:0b1c2d3e-0000-4000-8000-000000000003"])
        #expect(result.contacts.map(\.fields) == [
            [
                "full_name": "Zoë Ångström", "given": "Zoë", "family": "Ångström", "nicknames": ["Zo", "ZA"],
                "emails": [Self.entry("zoe@cloud.example", "work"), Self.entry("zoe.a@example.net", "home,work")],
                "phones": [Self.entry("+46-70-123-45-67", "cell"), Self.entry("+46-8-555-123", "home")],
                "addresses": [["street": "Main St 1, Building B, PO Box 7", "city": "Uppsala", "postcode": "751 05", "country": "Sweden", "type": "work"]],
                "birthday": "--04-15", "categories": ["Work", "Climbing, bouldering"], "urls": ["https://zoe.example"],
            ],
            ["full_name": "Old Timer", "birthday": "1953-10-15", "emails": [], "phones": [], "addresses": []],
            ["full_name": "Circa Person", "emails": [], "phones": [], "addresses": []],
        ])
    }

    @Test func noPhotoAndNoNoteIsEverSent() throws {
        for name in ["android-2.1.vcf", "google-3.0.vcf", "apple-3.0.vcf", "nextcloud-4.0.vcf"] {
            for contact in try parse(name).contacts {
                let json = String(decoding: contact.item.json, as: UTF8.self)
                for leak in ["/9j/", "coffee", "harbour\"", "green tea", "private", "photo", "note"] {
                    #expect(!json.lowercased().contains(leak.lowercased()), "\(name): \(leak) in \(json)")
                }
            }
        }
    }

    @Test func brokenCardsAreSkippedWithTheirLineAndUIDAndTheRestIsRead() throws {
        let result = try parse("broken.vcf")
        #expect(result.contacts.map(\.fullName) == ["Good Card"])
        #expect(result.problems == [
            "card at line 1 (UID broken-no-end): no END:VCARD before the next BEGIN:VCARD; skipped",
            "card at line 5 (UID broken-no-name): no name (FN or N); skipped",
            "card at line 10 (UID broken-utf8): FN on line 12 is not valid UTF-8; skipped",
            "card at line 21 (UID cut-off): no END:VCARD before the end of the file; skipped",
        ])
        let junk = try parse("junk.vcf")
        #expect(junk.cards == 0 && junk.contacts.isEmpty)
    }

    @Test func theVdirsyncerTreeGivesOneContactPerFile() throws {
        var names: [String] = []
        for file in ["family/7d3c1a52-mum.vcf", "family/9e8f7a6b-brother.vcf", "work/c0ffee01-boss.vcf"] {
            let result = try parse("vdirsyncer/contacts/" + file)
            #expect(result.problems.isEmpty && result.contacts.count == 1)
            #expect(file.contains(result.contacts[0].key))
            names += result.contacts.map(\.fullName)
        }
        #expect(names == ["Margaret Lee", "Daniel Lee", "Priya Raman"])
    }
}
