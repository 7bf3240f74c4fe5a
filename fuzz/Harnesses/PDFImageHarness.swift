@testable import Adapters

/// Any bytes as a PDF through qpdf: each of its first pages' one image found in its resources
/// and decoded as a scanned page's is (Flate rows, PNG predictors, 1-bit and RGB samples; a JPEG
/// through leptonica). Few pixels at most, so that one input costs milliseconds.
enum PDFImageHarness {
    static func run(_ bytes: [UInt8]) {
        let document = QPDFDocument(bytes)
        for page in 0..<3 { _ = document.image(ofPage: page, area: 100 * 100, maxPixels: 1 << 20) }
    }
}
