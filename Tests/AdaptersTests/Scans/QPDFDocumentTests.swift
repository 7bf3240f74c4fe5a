import Foundation
import Testing
@testable import Adapters

/// Which scanned PDF pages are decoded from their image's own stream (the rest poppler decodes,
/// as before), over the pdf-image fuzz target's seeds: a 64 x 24 px page as img2pdf writes it.
struct QPDFDocumentTests {
    static let seeds = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("fuzz/corpus/pdf-image").path

    /// Page `page` of seed `name`, its image drawn over 15.36 x 5.76 pt: 64 x 24 px is 300 dpi.
    func image(_ name: String, page: Int = 0, maxPixels: Int = 1 << 20) throws -> LeptonicaImage? {
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: Self.seeds + "/" + name)))
        return QPDFDocument(bytes).image(ofPage: page, area: 15.36 * 5.76, maxPixels: maxPixels)
    }

    @Test(arguments: ["grey-png.pdf", "rgb-png.pdf", "1bit.pdf", "grey-jpeg.pdf", "rgb-jpeg.pdf", "form-inverted-raw.pdf"])
    func aScanIsDecodedFromItsImageStream(_ name: String) throws {
        let image = try #require(try image(name), "\(name)")
        #expect(image.dpi == (name == "form-inverted-raw.pdf" ? 70 : 300), "\(name): the resolution of the area it covers")
    }

    @Test func ccittAnImageOverTheLimitAPageTooFarAndGarbageAreLeftToPoppler() throws {
        #expect(try image("g4.pdf") == nil)
        #expect(try image("grey-png.pdf", maxPixels: 64 * 24 - 1) == nil)
        #expect(try image("grey-png.pdf", page: 1) == nil)
        #expect(QPDFDocument(Array("%PDF-1.4\nnot a pdf".utf8)).image(ofPage: 0, area: 1, maxPixels: 1 << 20) == nil)
    }

    @Test func aCorruptImageStreamIsLeftToPoppler() throws {
        var bytes = Array(try Data(contentsOf: URL(fileURLWithPath: Self.seeds + "/grey-png.pdf")))
        // A hundred bytes of the image's Flate data (349 bytes) zeroed, its /Length unchanged.
        let image = try #require(bytes.indices.first { bytes[$0...].starts(with: Array("/Subtype /Image".utf8)) })
        let data = try #require((image..<bytes.count).first { bytes[$0...].starts(with: Array("stream\n".utf8)) }) + 7
        for i in (data + 100)..<(data + 200) { bytes[i] = 0 }
        #expect(QPDFDocument(bytes).image(ofPage: 0, area: 15.36 * 5.76, maxPixels: 1 << 20) == nil)
    }
}
