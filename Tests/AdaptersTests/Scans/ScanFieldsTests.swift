import IngestCore
import Testing
@testable import Adapters

/// The scans adapter's fields that need no OCR: times, text normalisation, names and languages.
struct ScanFieldsTests {
    @Test func timesCarryTheirOwnOffset() {
        #expect(CaptureTime.text(unixSeconds: 1_706_770_800, offsetSeconds: 3600) == "2024-02-01T08:00:00+01:00")
        #expect(CaptureTime.text(unixSeconds: 0, offsetSeconds: -(8 * 3600 + 30 * 60)) == "1969-12-31T15:30:00-08:30")
        #expect(CaptureTime.text(unixSeconds: -1, offsetSeconds: 0) == "1969-12-31T23:59:59+00:00")
        let meta = PhotoMetadata(dateTimeOriginal: LocalDateTime(year: 2024, month: 3, day: 15, hour: 9, minute: 30, second: 0), offset: "+05:30")
        #expect(CaptureTime.exif(meta) == "2024-03-15T09:30:00+05:30")
        #expect(CaptureTime.exif(PhotoMetadata()) == nil)
    }

    @Test func textIsNFCAndCappedInScalars() {
        #expect(ScanItem.normalized("Mu\u{308}ller").unicodeScalars.map(\.value) == Array("Müller".unicodeScalars.map(\.value)))
        let long = String(repeating: "ä", count: ScanItem.maxTextScalars + 10)
        #expect(ScanItem.normalized(long).unicodeScalars.count == ScanItem.maxTextScalars)
    }

    @Test func aTextLayerIsThePageFrom50NonSpaceCharacters() {
        #expect(!TextLayer.isWholePage("CONFIDENTIAL COPY\nScan 0042"))
        #expect(!TextLayer.isWholePage(String(repeating: "a ", count: 49) + "\n\t "))
        #expect(TextLayer.isWholePage(String(repeating: "a ", count: 50)))
    }

    @Test func aLayerLineOCRAlsoReadIsKeptOnce() {
        let read = "Confidential copy\nTenancy agreement for the flat"
        #expect(TextLayer.lines(of: "CONFIDENTIAL COPY\nScan 0042\n\n", notIn: read) == ["Scan 0042"])
        // Four of five words read counts as read; three of five does not.
        #expect(TextLayer.lines(of: "tenancy agreement for the house", notIn: read).isEmpty)
        #expect(TextLayer.lines(of: "tenancy agreement for a house", notIn: read) == ["tenancy agreement for a house"])
    }

    @Test func onlyScanExtensionsCount() {
        for name in ["a.png", "b.JPG", "c.jpeg", "d.tif", "e.TIFF", "f.pdf"] { #expect(ScansAdapter.isScan(name), "\(name)") }
        for name in ["notes.txt", "scan.pdf.xmp", ".pdf", "tiff", "a.heic"] { #expect(!ScansAdapter.isScan(name), "\(name)") }
    }

    @Test func formatsAreToldByTheirFirstBytes() {
        #expect(ScanFormat.sniff(Array("junk\n%PDF-1.7\n".utf8)) == .pdf)
        #expect(ScanFormat.sniff([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0]) == .png)
        #expect(ScanFormat.sniff([0xFF, 0xD8, 0xFF, 0xE0]) == .jpeg)
        #expect(ScanFormat.sniff(Array("MM\0*\0\0\0\u{8}".utf8)) == .tiff)
        #expect(ScanFormat.sniff(Array("not a scan".utf8)) == nil)
    }

    @Test func languagesNameTheirDebianPackages() {
        #expect(TesseractLanguages.package("chi_sim") == "tesseract-ocr-chi-sim")
        #expect(TesseractLanguages.package("deu") == "tesseract-ocr-deu")
        #expect(TesseractLanguages.problem(with: "eng") == nil)
        #expect(TesseractLanguages.problem(with: "eng+") == "an empty code is no Tesseract language code; write codes such as eng or deu+eng")
        #expect(TesseractLanguages.problem(with: "../etc") != nil)
    }
}
