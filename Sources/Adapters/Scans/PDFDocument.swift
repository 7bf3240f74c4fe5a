import CPoppler
import IngestCore
#if canImport(Glibc)
import Glibc
#endif

/// Owns one poppler document, opened from a PDF's bytes. Poppler reads a document one call at a
/// time, so the handle is under a lock; the pages' recognition, which takes the time, is not.
final class PDFDocument: Sendable {
    private let handle: Locked<OpaquePointer>
    /// The same file through qpdf, which decodes a scanned page's image with less memory.
    private let imageStreams: QPDFDocument
    let pageCount: Int

    init(_ bytes: [UInt8]) throws(ScanError) {
        guard cpoppler_load() != 0 else { throw ScanError(PDFDocument.libraryMissing + "; install libpoppler-glib8") }
        var message: UnsafeMutablePointer<CChar>?
        let opened = bytes.withUnsafeBufferPointer { cpoppler_open($0.baseAddress, $0.count, &message) }
        let reason = message.map { String(cString: $0) }
        free(message)
        guard let opened else { throw ScanError("not a readable PDF" + (reason.map { ": \($0)" } ?? "")) }
        pageCount = Int(cpoppler_page_count(opened))
        handle = Locked(opened)
        imageStreams = QPDFDocument(bytes)
    }

    deinit { handle.withLock { cpoppler_close($0) } }

    static let libraryMissing = "libpoppler-glib.so.8 is not installed"

    /// Held while poppler makes a page's pixels, whichever document they come from: it decodes a
    /// scanned image into a colour surface (4 bytes a pixel, 35 MB for an A4 page at 300 dpi) and
    /// draws it on another, so pages of two PDFs read at once would double that.
    private static let decoding = Locked(())

    /// `doctor`: poppler-glib loads (a PDF's own text and its pages' images come from it).
    static var libraryCheck: DoctorCheck {
        cpoppler_load() != 0 ? .ok("poppler-glib", "loads") : .fail("poppler-glib", libraryMissing, fix: "sudo apt install libpoppler-glib8")
    }

    /// The images page `index` draws: how many, and the largest's share of the page (0–1), id and
    /// area in square points. Reads the page's content, decodes no image.
    func images(ofPage index: Int) -> PageImages {
        handle.withLock { doc in
            var share = 0.0, id: Int32 = -1, area = 0.0
            let count = cpoppler_page_images(doc, Int32(index), &share, &id, &area)
            return PageImages(count: Int(count), largestShare: share, largestID: Int(id), largestArea: area)
        }
    }

    /// Image `id` of page `index` (its only image) decoded once, at its own resolution, in grey:
    /// from its stream by qpdf where it can, else by poppler; nil when neither can, or it is over
    /// `maxPixels`. Its resolution follows from the `area` it covers.
    func image(_ id: Int, ofPage index: Int, area: Double, maxPixels: Int) -> LeptonicaImage? {
        if let image = imageStreams.image(ofPage: index, area: area, maxPixels: maxPixels) { return image }
        let bitmap: GrayBitmap? = PDFDocument.decoding.withLock { _ in handle.withLock { doc in
            var width: Int32 = 0, height: Int32 = 0
            guard let pixels = cpoppler_page_image_gray(doc, Int32(index), Int32(id), maxPixels, &width, &height) else { return nil }
            let dpi = PDFDocument.dpi(width: Int(width), height: Int(height), area: area)
            return GrayBitmap(taking: pixels, width: Int(width), height: Int(height), dpi: dpi)
        } }
        return bitmap.flatMap(LeptonicaImage.init)
    }

    /// The resolution of an image of `width` x `height` pixels drawn over `area` square points.
    static func dpi(width: Int, height: Int, area: Double) -> Int {
        let inches = area / (72 * 72)
        let dpi = inches > 0 ? Int((Double(width) * Double(height) / inches).squareRoot().rounded()) : ScanRecognizer.renderDPI
        return min(max(dpi, 70), 2400)
    }

    /// Page `index`'s own text, nil when it has none (a scanned page: an image and nothing else).
    func text(ofPage index: Int) -> String? {
        let text: String? = handle.withLock { doc in
            guard let utf8 = cpoppler_page_text(doc, Int32(index)) else { return nil }
            defer { free(utf8) }
            return String(cString: utf8)
        }
        guard let text, text.contains(where: { !$0.isWhitespace }) else { return nil }
        return text
    }

    /// Page `index` rendered in grey at `dpi`; nil when poppler cannot, or it is over `maxPixels`.
    func render(page index: Int, dpi: Int, maxPixels: Int) -> GrayBitmap? {
        PDFDocument.decoding.withLock { _ in handle.withLock { doc in
            var width: Int32 = 0, height: Int32 = 0
            guard let pixels = cpoppler_page_render_gray(doc, Int32(index), Double(dpi), maxPixels, &width, &height) else { return nil }
            return GrayBitmap(taking: pixels, width: Int(width), height: Int(height), dpi: dpi)
        } }
    }

    /// What `images(ofPage:)` finds.
    struct PageImages {
        var count: Int, largestShare: Double, largestID: Int, largestArea: Double
        /// A scan as img2pdf, a scanner or ocrmypdf writes it: one image, the whole page.
        var isOneFullPageImage: Bool { count == 1 && largestShare >= 0.9 }
        /// Whether an image covers most of the page, so that the page is a scan whatever text it carries.
        var coverMostOfThePage: Bool { largestShare > 0.5 }
    }

    /// The Info dictionary's CreationDate: seconds since the epoch and its own UTC offset.
    var creationDate: (unixSeconds: Int64, offsetSeconds: Int)? {
        handle.withLock { doc in
            var seconds: Int64 = 0, offset: Int32 = 0
            guard cpoppler_creation_date(doc, &seconds, &offset) != 0 else { return nil }
            return (seconds, Int(offset))
        }
    }
}
