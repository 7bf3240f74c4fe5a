import Foundation
import IngestCore
import Testing
@testable import Adapters

/// One vCard quirk per test, on small inline cards.
struct VCardQuirkTests {
    func contacts(_ text: String, crlf: Bool = false) -> [Contact] {
        VCardParser.parse(Array((crlf ? text.replacingOccurrences(of: "\n", with: "\r\n") : text).utf8)).contacts
    }

    func card(_ version: String, _ lines: String) -> String { "BEGIN:VCARD\nVERSION:\(version)\n\(lines)\nEND:VCARD\n" }

    @Test(arguments: [false, true])
    func foldingDropsOneSpaceOrTabIn30And40(crlf: Bool) {
        for version in ["3.0", "4.0"] {
            let c = contacts(card(version, "FN:Mar\n ia Lo\n\tpez\nTITLE:Chief \n  Officer"), crlf: crlf)
            #expect(c.first?.fullName == "Maria Lopez")
            #expect(c.first?.title == "Chief  Officer", "only the first white space character is the fold")
        }
    }

    @Test func foldingIn21KeepsTheWhiteSpace() {
        #expect(contacts(card("2.1", "N:Lopez;Maria\nFN:Maria\n Lopez"), crlf: true).first?.fullName == "Maria Lopez")
    }

    @Test func quotedPrintableSoftLineBreaksAndBothSpellingsOfTheEncoding() {
        let c = contacts(card("2.1", """
            N;ENCODING=QUOTED-PRINTABLE;CHARSET=UTF-8:Gonz=C3=A1lez;Jos=
            =C3=A9
            FN;CHARSET=UTF-8;QUOTED-PRINTABLE:Jos=C3=A9 Gonz=C3=A1lez=20=
            =3D=3D
            TITLE;QUOTED-PRINTABLE:Head of=
             Sales
            """), crlf: true)
        #expect(c.first?.given == "José")
        #expect(c.first?.family == "González")
        #expect(c.first?.fullName == "José González ==")
        #expect(c.first?.title == "Head of Sales", "a continuation after a soft break keeps its leading space")
    }

    @Test func charsets() {
        let latin1 = Array("BEGIN:VCARD\nVERSION:2.1\nFN;CHARSET=ISO-8859-1:Ren".utf8) + [0xE9, 0x80] + Array("\nEND:VCARD\n".utf8)
        #expect(VCardParser.parse(latin1).contacts.first?.fullName == "René\u{80}")
        let cp1252 = Array("BEGIN:VCARD\nVERSION:2.1\nFN;CHARSET=WINDOWS-1252:Ren".utf8) + [0xE9, 0x80] + Array("\nEND:VCARD\n".utf8)
        #expect(VCardParser.parse(cp1252).contacts.first?.fullName == "René€")
        let qpLatin1 = card("2.1", "FN;CHARSET=ISO-8859-1;ENCODING=QUOTED-PRINTABLE:Ren=E9")
        #expect(contacts(qpLatin1).first?.fullName == "René")
        // 3.0 and 4.0 are UTF-8: a stray Latin-1 byte makes the card unreadable, not mojibake.
        let bad30 = Array("BEGIN:VCARD\nVERSION:3.0\nFN:Ren".utf8) + [0xE9] + Array("\nEND:VCARD\n".utf8)
        #expect(VCardParser.parse(bad30).contacts.isEmpty)
        // UTF-16 with a byte order mark (old macOS Address Book exports) and a UTF-8 BOM.
        let text = card("3.0", "FN:Zoë")
        #expect(VCardParser.parse([0xFF, 0xFE] + text.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }).contacts.first?.fullName == "Zoë")
        #expect(VCardParser.parse([0xFE, 0xFF] + text.utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }).contacts.first?.fullName == "Zoë")
        #expect(VCardParser.parse([0xEF, 0xBB, 0xBF] + Array(text.utf8)).contacts.first?.fullName == "Zoë")
    }

    @Test func typeParametersInEverySpelling() {
        let spellings = ["TEL;TYPE=HOME,WORK:1", "TEL;TYPE=home;TYPE=work:1", "TEL;type=\"home,work\":1", "TEL;HOME;WORK:1", "TEL;HOME;WORK;VOICE;PREF:1"]
        for line in spellings {
            #expect(contacts(card(line.contains("TYPE") || line.contains("type") ? "3.0" : "2.1", "FN:A\n" + line)).first?.phones == [.init(value: "1", type: "home,work")], "\(line)")
        }
        #expect(contacts(card("3.0", "FN:A\nTEL;TYPE=VOICE:1\nEMAIL;TYPE=INTERNET:a@b")).first.map { [$0.phones[0].type, $0.emails[0].type] } == ["voice", nil])
    }

    @Test func groupedPropertiesTakeTheirAppleLabel() {
        let c = contacts(card("3.0", """
            FN:A
            ITEM1.EMAIL;TYPE=INTERNET:one@example.com
            item2.EMAIL;TYPE=WORK:two@example.com
            item1.X-ABLabel:_$!<Other>!$_
            item3.EMAIL:three@example.com
            """))
        #expect(c.first?.emails == [.init(value: "one@example.com", type: "other"), .init(value: "two@example.com", type: "work"),
                                    .init(value: "three@example.com", type: nil)])
    }

    @Test func escapedCommasAndSemicolonsInNAndADR() {
        let c = contacts(card("3.0", """
            N:Doe\\, Jr.;John\\;Paul;Q.,R.;Dr.;III
            ADR;TYPE=work:;Suite 5\\; 2nd floor;1 Main St\\, Back;Spring\\,field;;12345;USA
            """)).first
        #expect(c?.family == "Doe, Jr.")
        #expect(c?.given == "John;Paul")
        #expect(c?.fullName == "Dr. John;Paul Q. R. Doe, Jr. III", "without FN the name is built from N")
        #expect(c?.addresses == [.init(street: "1 Main St, Back, Suite 5; 2nd floor", city: "Spring,field", postcode: "12345", country: "USA", type: "work")])
        // 2.1 has no lists: a comma in N is text.
        #expect(contacts(card("2.1", "N:Doe, Jr.;John")).first?.family == "Doe, Jr.")
    }

    @Test func manyCardsInOneFileAndADuplicateUID() {
        let text = (1...50).map { card("3.0", "FN:Person \($0)\nUID:u\($0)") }.joined() + card("3.0", "FN:Again\nUID:u7")
        let result = VCardParser.parse(Array(text.utf8))
        #expect(result.contacts.map(\.fullName) == (1...50).map { "Person \($0)" })
        #expect(result.problems == ["card at line 251 (UID u7): UID already used by an earlier card in this file; skipped"])
    }

    @Test(arguments: [
        ("--0415", "--04-15"), ("--04-15", "--04-15"), ("19850704", "1985-07-04"), ("1985-07-04", "1985-07-04"),
        ("1985-07-04T10:00:00Z", "1985-07-04"), ("19531015T231000Z", "1953-10-15"), ("1987-09-27T08:30:00-06:00", "1987-09-27"),
        ("2000-02-29", "2000-02-29"), ("--02-29", "--02-29"), ("0850-01-01", "0850-01-01"),
    ])
    func birthdays(text: String, expected: String) {
        #expect(VCardBirthday.parse(text) == expected)
    }

    @Test(arguments: ["1985-02-29", "1900-02-29", "1996", "1996-04", "---15", "--1304", "1985-04-31", "circa 1800", "", "T102200"])
    func birthdaysThatAreNotDates(text: String) {
        #expect(VCardBirthday.parse(text) == nil)
    }

    @Test func appleOmitYear() {
        #expect(VCardBirthday.parse("1604-11-03", appleOmitYear: "1604") == "--11-03")
        #expect(VCardBirthday.parse("1990-11-03", appleOmitYear: "1604") == "1990-11-03")
    }

    @Test func keysAreTheUIDElseAStableHash() throws {
        let a = try #require(contacts(card("3.0", "FN:Kim Park\nEMAIL:Kim@Example.com\nTEL:+82 2 555 0100\nNOTE:one")).first)
        let b = try #require(contacts(card("4.0", "FN:Kim Park\nEMAIL;TYPE=work:kim@example.com\nTITLE:Boss")).first)
        #expect(a.key == b.key, "the same person from two exports")
        #expect(a.key.hasPrefix("vcard:"))
        let c = try #require(contacts(card("3.0", "FN:Kim Park\nEMAIL:other@example.com")).first)
        #expect(c.key != a.key)
        let byPhone1 = try #require(contacts(card("3.0", "FN:Kim Park\nTEL:+82 (2) 555-0100")).first)
        let byPhone2 = try #require(contacts(card("3.0", "FN:Kim Park\nTEL;VALUE=uri:tel:+82-2-555-0100")).first)
        #expect(byPhone1.key == byPhone2.key)
        #expect(contacts(card("3.0", "FN:K\nUID:abc-123")).first?.key == "abc-123")
        let long = String(repeating: "x", count: 600)
        let hashed = try #require(contacts(card("3.0", "FN:K\nUID:\(long)")).first?.key)
        #expect(hashed.hasPrefix("uid-sha256:") && hashed.count < 512)
    }

    @Test func theVersionChangesWithWhatIsSentOnly() throws {
        let base = try #require(contacts(card("3.0", "FN:Kim\nUID:k\nEMAIL:kim@example.com")).first?.item)
        let noteAndPhoto = try #require(contacts(card("3.0", "FN:Kim\nUID:k\nEMAIL:kim@example.com\nNOTE:new note\nPHOTO;ENCODING=b:AAAA\nREV:2025")).first?.item)
        let edited = try #require(contacts(card("3.0", "FN:Kim\nUID:k\nEMAIL:kim@example.org")).first?.item)
        #expect(base.version == noteAndPhoto.version)
        #expect(base.version != edited.version)
        #expect(base.key == edited.key)
    }

    @Test func nestedAgentCardsBinaryLinesAndOtherComponentsAreSkipped() {
        let text = """
            BEGIN:VCALENDAR
            END:VCALENDAR
            BEGIN:VCARD
            VERSION:2.1
            FN:Main
            AGENT:
            BEGIN:VCARD
            VERSION:2.1
            FN:Agent
            END:VCARD
            \u{01}\u{02}junk without a colon
            END:VCARD
            """
        let result = VCardParser.parse(Array(text.utf8))
        #expect(result.contacts.map(\.fullName) == ["Main"])
        #expect(result.problems.isEmpty)
    }

    @Test func theAdapterFailsAFileWithNoReadableCardSoItsOldItemsAreKept() {
        let noCard = ContactsAdapter.parse("/x.vcf", Array("just text\n".utf8)).failure
        #expect(noCard?.contains("no BEGIN:VCARD") == true, "a file with no card must fail")
        let badCard = ContactsAdapter.parse("/x.vcf", Array("BEGIN:VCARD\nVERSION:3.0\nUID:a\nEND:VCARD\n".utf8)).failure
        #expect(badCard == "card at line 1 (UID a): no name (FN or N); skipped", "a file whose only card is bad must fail")
        let oneGood = ContactsAdapter.parse("/x.vcf", Array((card("3.0", "FN:Ok") + card("3.0", "UID:b")).utf8)).whole
        #expect(oneGood?.items.count == 1 && oneGood?.warnings.count == 1, "one good card is enough")
    }

    @Test func vCardFileNames() {
        #expect(ContactsAdapter.isVCardFile("a.vcf") && ContactsAdapter.isVCardFile("B.VCF") && ContactsAdapter.isVCardFile("x.vCard"))
        #expect(!ContactsAdapter.isVCardFile(".vcf") && !ContactsAdapter.isVCardFile("displayname") && !ContactsAdapter.isVCardFile("a.vcf.bak"))
    }
}
