import Foundation
import IngestCore
import Testing

/// The documents tools/make-scan-fixtures.sh makes, made once for the suite.
let scanFixtures: String = {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("scan-fixtures-\(UUID().uuidString.prefix(8))").path
    let r = try? runProcess("/bin/bash", [repoRoot + "/tools/make-scan-fixtures.sh", dir])
    precondition(r?.status == 0, "make-scan-fixtures.sh failed: \(r?.stderr ?? "not run")")
    atexit { try? FileManager.default.removeItem(atPath: scanFixtures) }
    return dir
}()

/// What the `tesseract` CLI reads on `image`: the reference the agent's text is held to.
func tesseractReading(_ image: String, languages: String = "eng") throws -> String {
    let r = try runProcess("/usr/bin/tesseract", [image, "stdout", "-l", languages])
    try #require(r.status == 0, "tesseract \(image): \(r.stderr)")
    return r.stdout
}

/// Lower-case words without the punctuation around them.
func words(_ text: String) -> [String] {
    text.lowercased().split(whereSeparator: \.isWhitespace).map { $0.trimmingCharacters(in: .punctuationCharacters) }.filter { !$0.isEmpty }
}

/// The share of `reference`'s words that `text` holds.
func wordShare(of reference: String, in text: String) -> Double {
    let want = words(reference), have = Set(words(text))
    return want.isEmpty ? 0 : Double(want.filter(have.contains).count) / Double(want.count)
}

func sha256Hex(file: String) throws -> String {
    Digest.sha256Hex(Array(try Data(contentsOf: URL(fileURLWithPath: file))))
}

@Suite("scans adapter against the tesseract CLI and the test node", .serialized)
struct ScansTests {
    /// A sandbox paired with `node` whose `scans` adapter reads `names` from the fixtures, copied
    /// into a folder tree (the PDFs one level down, to be found recursively).
    func sandbox(_ node: TestNode, _ names: [String], languages: String? = nil, settings: String = "") throws -> (AgentSandbox, String) {
        let agent = try AgentSandbox()
        let folder = agent.root + "/Scans"
        try FileManager.default.createDirectory(atPath: folder + "/2024/pdf", withIntermediateDirectories: true)
        for name in names {
            let target = name.hasSuffix(".pdf") ? "2024/pdf/" + name : name
            try FileManager.default.copyItem(atPath: scanFixtures + "/docs/" + name, toPath: folder + "/" + target)
        }
        try agent.usePairedNode(node.url, token: node.token)
        try agent.write("adapters.d/scans.conf", "[Adapter]\nType=scans\nPath=\(folder)\n" + (languages.map { "Languages=\($0)\n" } ?? "") + settings)
        return (agent, folder)
    }

    func stored(_ node: TestNode) throws -> [String: JSONValue] {
        var byName: [String: JSONValue] = [:]
        for entry in try node.items("scan") { if let name = entry["item"]?["file"]?["name"]?.stringValue { byName[name] = entry } }
        return byName
    }

    func counts(_ node: TestNode) throws -> (accepted: Int64, receipts: Int64, live: Int64) {
        let c = try node.admin("counts")["endpoints"]?["scan"]
        return (c?["accepted"]?.intValue ?? 0, c?["receipts"]?.intValue ?? 0, c?["live"]?.intValue ?? 0)
    }

    static let documents = ["receipt-bakery.png", "receipt-hardware.jpg", "letter.png", "photo-of-page.jpg", "phone-sideways.jpg", "two-page.tiff",
                            "two-page-reversed.tif", "image-only.pdf", "text-layer.pdf", "archive-20.pdf"]

    @Test func everyDocumentIsOneItemWithTheWordsTesseractReads_andNothingElseLeaves() throws {
        let node = try TestNode()
        let (agent, folder) = try sandbox(node, Self.documents + ["corrupt.png", "notes.txt"])
        // A scan with no EXIF: its mtime, at the zone's offset of that moment.
        var times = [timespec](repeating: timespec(tv_sec: 1_654_084_800, tv_nsec: 0), count: 2)   // 2022-06-01T12:00:00Z
        #expect(utimensat(AT_FDCWD, folder + "/receipt-bakery.png", &times, 0) == 0)
        let r = try agent.run(["run"], env: ["TZ": "Europe/Berlin"])
        #expect(r.status == 0, "\(r.stderr)")
        let corrupt = r.stderr.split(separator: "\n").filter { $0.contains("corrupt.png") }
        #expect(corrupt.count == 1, "one warning names the corrupt file: \(r.stderr)")
        #expect(!r.stderr.contains("notes.txt"))

        let items = try stored(node)
        #expect(Set(items.keys) == Set(Self.documents), "one item per document, none for the corrupt file or the .txt")
        for (name, entry) in items {
            let item = try #require(entry["item"])
            let path = folder + "/" + (name.hasSuffix(".pdf") ? "2024/pdf/" : "") + name
            #expect(entry["key"]?.stringValue == (try sha256Hex(file: path)), "\(name): the key is the SHA-256 of its bytes")
            let size = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int
            #expect(item["file"] == ["name": .string(name), "size": .int(Int64(size ?? -1))])
            let confidence = try #require(item["confidence"]?.doubleValue)
            #expect((60...100).contains(confidence), "\(name): confidence \(confidence)")
            guard case .object(let members) = item else { Issue.record("\(name): not an object"); continue }
            let fields = Set(members.keys)
            #expect(fields == ["key", "version", "captured_at", "text", "pages", "lang", "confidence", "file"], "\(name): \(fields)")
            let json = String(decoding: item.encoded, as: UTF8.self)
            #expect(!json.contains(agent.root), "\(name): a path left the machine")
        }
        let text = { (name: String) in items[name]?["item"]?["text"]?.stringValue ?? "" }
        for name in ["receipt-bakery.png", "receipt-hardware.jpg", "letter.png", "photo-of-page.jpg", "two-page.tiff"] {
            let share = wordShare(of: try tesseractReading(scanFixtures + "/docs/" + name), in: text(name))
            #expect(share >= 0.9, "\(name): \(Int(share * 100)) % of tesseract's words in \(text(name))")
        }
        #expect(wordShare(of: try tesseractReading(scanFixtures + "/pages/bill.png"), in: text("image-only.pdf")) >= 0.9)
        // Stored sideways: the CLI (leptonica ignores a JPEG's EXIF Orientation) is the reference on the upright page.
        #expect(wordShare(of: try tesseractReading(scanFixtures + "/pages/phone-upright.png"), in: text("phone-sideways.jpg")) >= 0.9)
        let layer = try String(contentsOfFile: scanFixtures + "/text/text-layer.txt", encoding: .utf8)
        #expect(wordShare(of: layer, in: text("text-layer.pdf")) == 1, "a text layer is taken as it is")
        #expect(text("two-page-reversed.tif").hasPrefix("Coverage begins"), "pages in their order")
        for n in 1...20 { #expect(text("archive-20.pdf").contains("Page \(n) of the archive")) }

        let field = { (name: String, key: String) in items[name]?["item"]?[key] }
        #expect(field("archive-20.pdf", "pages") == 20 && field("two-page.tiff", "pages") == 2 && field("letter.png", "pages") == 1)
        #expect(field("letter.png", "lang") == "eng" && field("image-only.pdf", "lang") == "eng")
        #expect(field("text-layer.pdf", "lang") == "", "no page of it was recognized")
        #expect(field("text-layer.pdf", "confidence")?.doubleValue == 100)
        #expect(field("receipt-hardware.jpg", "captured_at") == "2024-03-15T09:30:00+05:30", "EXIF DateTimeOriginal + OffsetTimeOriginal")
        #expect(field("text-layer.pdf", "captured_at") == "2024-02-01T08:00:00+01:00", "the CreationDate with its own offset")
        #expect(field("image-only.pdf", "captured_at") == "2023-11-05T14:00:00+00:00", "img2pdf writes UTC")
        #expect(field("receipt-bakery.png", "captured_at") == "2022-06-01T14:00:00+02:00", "mtime, at Berlin's summer offset")

        // Unchanged: nothing is recognized again, nothing is sent, and the corrupt file is not reported again.
        let before = try counts(node)
        let again = try agent.run(["run", "--dry-run"])
        #expect(again.status == 0 && again.stdout.isEmpty, "\(again.stdout)")
        #expect(!again.stderr.contains("corrupt.png"))
        #expect(try agent.run(["run"]).status == 0)
        #expect(try counts(node) == before)
    }

    @Test func germanWithDeuEngKeepsItsUmlautsInNFC() throws {
        let node = try TestNode()
        let (agent, _) = try sandbox(node, ["german.png"], languages: "deu+eng")
        #expect(try agent.run(["run"]).status == 0)
        let item = try #require(try stored(node)["german.png"]?["item"])
        #expect(item["lang"] == "deu+eng")
        let text = try #require(item["text"]?.stringValue)
        for word in ["Müller", "Größe", "Hauptstraße", "Grüßen", "Jürgen", "Weiß"] { #expect(text.contains(word), "\(word) in \(text)") }
        #expect(text.unicodeScalars.contains("\u{FC}") && !text.unicodeScalars.contains("\u{308}"), "ü precomposed (NFC)")
        let share = wordShare(of: try tesseractReading(scanFixtures + "/docs/german.png", languages: "deu+eng"), in: text)
        #expect(share >= 0.9, "\(Int(share * 100)) % of tesseract's words")
    }

    /// An A4 scan as img2pdf writes it is its image, decoded once; framed by margins on the page,
    /// the page is rendered a band of rows at a time, and each line of it straddles two bands.
    @Test func anA4PageReadByOneEngineHasEveryLineWholeAndInOrder_asOneImageAndRenderedInBands() throws {
        let node = try TestNode()
        let (agent, _) = try sandbox(node, ["tall-a4.pdf", "tall-a4-framed.pdf"], settings: "Jobs=1\n")
        let r = try agent.run(["run"])
        #expect(r.status == 0, "\(r.stderr)")
        for name in ["tall-a4.pdf", "tall-a4-framed.pdf"] {
            let item = try #require(try stored(node)[name]?["item"])
            let lines = (item["text"]?.stringValue ?? "").split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            #expect(lines == (1...8).map { "Section \($0) of the tall page ends here" }, "\(name)")
            #expect(item["pages"] == 1 && item["lang"] == "eng")
        }
    }

    /// The letter as a PDF page, its image stored in each way scanners and img2pdf store one, and
    /// the same page as a PNG: a grey or colour PNG's pixels (Flate), a grey or colour JPEG, 1 bit
    /// a pixel, and CCITT G4 (which poppler decodes, as qpdf is not asked to).
    static let letterPages = ["letter-grey-png.pdf": "letter.png", "letter-rgb-png.pdf": "letter-rgb.png", "letter-grey-jpeg.pdf": "letter.png",
                              "letter-rgb-jpeg.pdf": "letter-rgb.png", "letter-1bit.pdf": "letter-1bit.png", "letter-g4.pdf": "letter-1bit.png"]

    @Test func aScannedPDFPageReadsTheWordsOfTheSamePageAsAPNG_howeverItsImageIsStored() throws {
        let node = try TestNode()
        let pngs = Set(Self.letterPages.values).sorted()
        let (agent, _) = try sandbox(node, pngs + Self.letterPages.keys.sorted())
        let r = try agent.run(["run"])
        #expect(r.status == 0, "\(r.stderr)")
        let items = try stored(node)
        let text = { (name: String) in items[name]?["item"]?["text"]?.stringValue ?? "" }
        let letter = try String(contentsOfFile: scanFixtures + "/text/letter.txt", encoding: .utf8)
        for png in pngs { #expect(wordShare(of: letter, in: text(png)) >= 0.9, "\(png): \(text(png))") }
        for (pdf, png) in Self.letterPages.sorted(by: <) {
            #expect(words(text(pdf)) == words(text(png)), "\(pdf): \(text(pdf))\n\(png): \(text(png))")
            #expect(items[pdf]?["item"]?["lang"] == "eng" && items[pdf]?["item"]?["pages"] == 1, "\(pdf): recognized")
        }
    }

    static let turned = ["turned-90.png", "turned-180.tiff", "turned-270.pdf", "skewed-3.png"]

    /// Scanned a quarter, half or three quarters turned, or crooked, with no orientation of its own.
    @Test func aPageTurnedOrSkewedIsReadWithTheWordsOfTheUprightPage() throws {
        let node = try TestNode()
        let (agent, _) = try sandbox(node, Self.turned)
        let r = try agent.run(["run"])
        #expect(r.status == 0, "\(r.stderr)")
        let items = try stored(node)
        #expect(Set(items.keys) == Set(Self.turned))
        let upright = try tesseractReading(scanFixtures + "/pages/upright.png")
        for name in Self.turned {
            let text = items[name]?["item"]?["text"]?.stringValue ?? ""
            let share = wordShare(of: upright, in: text)
            #expect(share >= 0.9, "\(name): \(Int(share * 100)) % of tesseract's words on the upright page in \(text)")
            #expect(text.hasPrefix("Notice of annual general meeting"), "\(name): read top to bottom")
        }
    }

    @Test func straightenNoReadsAPageAsItLies() throws {
        let node = try TestNode()
        let (agent, _) = try sandbox(node, ["turned-180.tiff"], settings: "Straighten=no\n")
        #expect(try agent.run(["run"]).status == 0)
        let text = try stored(node)["turned-180.tiff"]?["item"]?["text"]?.stringValue ?? ""
        #expect(wordShare(of: try tesseractReading(scanFixtures + "/pages/upright.png"), in: text) < 0.5, "read upside down: \(text)")
    }

    /// A scan whose text layer is only a stamp: the page is recognized, and the stamp's lines are
    /// kept once (the line the scan shows too is not doubled).
    @Test func aScanWithAStampAsItsTextLayerIsRecognized_andTheStampKeptOnce() throws {
        let node = try TestNode()
        let (agent, _) = try sandbox(node, ["watermarked.pdf", "text-layer.pdf"])
        #expect(try agent.run(["run"]).status == 0)
        let items = try stored(node)
        let item = try #require(items["watermarked.pdf"]?["item"])
        let text = item["text"]?.stringValue ?? ""
        let share = wordShare(of: try tesseractReading(scanFixtures + "/pages/watermarked.png"), in: text)
        #expect(share >= 0.9, "\(Int(share * 100)) % of tesseract's words in \(text)")
        #expect(text.components(separatedBy: "CONFIDENTIAL COPY").count == 2, "the stamp the scan shows, once: \(text)")
        #expect(text.contains("Scan 0042"), "the layer's line the scan does not show is kept")
        #expect(item["lang"] == "eng" && item["pages"] == 1)
        #expect(items["text-layer.pdf"]?["item"]?["lang"] == "", "a page of text is still taken from its layer")
    }

    @Test func aRenameOrACopySendsNothing_oneOfTwoCopiesDeletedNothing_theLastCopyOneTombstone() throws {
        let node = try TestNode()
        let (agent, folder) = try sandbox(node, ["receipt-bakery.png", "letter.png"])
        let fm = FileManager.default
        #expect(try agent.run(["run"]).status == 0)
        let start = try counts(node)
        #expect(start.accepted == 2 && start.live == 2)
        let letterKey = try sha256Hex(file: folder + "/letter.png")

        try fm.createDirectory(atPath: folder + "/moved", withIntermediateDirectories: true)
        try fm.moveItem(atPath: folder + "/receipt-bakery.png", toPath: folder + "/moved/bakery-2024-05.png")
        try fm.copyItem(atPath: folder + "/letter.png", toPath: folder + "/letter-copy.png")
        let moved = try agent.run(["run", "--dry-run"])
        #expect(moved.status == 0 && moved.stdout.isEmpty, "a renamed file and a copy send nothing: \(moved.stdout)")
        #expect(try agent.run(["run"]).status == 0)
        #expect(try counts(node) == start)

        try fm.removeItem(atPath: folder + "/letter.png")
        #expect(try agent.run(["run"]).status == 0)
        #expect(try counts(node) == start, "its copy is still there: no tombstone, no new file name")
        #expect(try stored(node)["letter.png"]?["item"]?["file"]?["name"] == "letter.png")

        try fm.removeItem(atPath: folder + "/letter-copy.png")
        #expect(try agent.run(["run"]).status == 0)
        let gone = try counts(node)
        #expect(gone.accepted == start.accepted + 1 && gone.receipts == start.receipts + 1 && gone.live == 1)
        let tombstones = try node.items("scan").filter { $0["deleted"] == true }.compactMap { $0["key"]?.stringValue }
        #expect(tombstones == [letterKey])
    }

    @Test func aMissingLanguageIsOneLineNamingItsTraineddataAndPackage() throws {
        let node = try TestNode()
        let (agent, _) = try sandbox(node, ["letter.png"], languages: "eng+xyz")
        let r = try agent.run(["run"])
        #expect(r.status != 0)
        let lines = r.stderr.split(separator: "\n").filter { $0.contains("xyz") }
        #expect(lines.count == 1 && lines[0].contains("xyz.traineddata") && lines[0].contains("tesseract-ocr-xyz"), "\(r.stderr)")
        #expect(try node.items("scan").isEmpty)
    }
}
