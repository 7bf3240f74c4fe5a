import CQPDF
import CTesseract
import IngestCore

/// Owns one qpdf document over a copy of a PDF's bytes, opened when the first scanned page's
/// image is asked for (a PDF read from its text layer never needs it). A page's image stream is
/// decoded from its own bytes, at its own resolution, straight to grey: poppler would decode it
/// into a colour surface (4 bytes a pixel) and draw it on another. qpdf reads a document one
/// call at a time, so the handle is under a lock; the decoding, which takes the time, is not.
final class QPDFDocument: Sendable {
    private enum State {
        case unopened([UInt8])
        case open(OpaquePointer)
        /// libqpdf is missing, or cannot read the file: poppler decodes every page.
        case unreadable
    }
    private let state: Locked<State>

    init(_ bytes: [UInt8]) { state = Locked(.unopened(bytes)) }

    deinit { state.withLock { if case .open(let document) = $0 { cqpdf_close(document) } } }

    static let libraryMissing = "libqpdf.so.29 is not installed"

    /// `doctor`: libqpdf loads. It is optional: without it poppler decodes a PDF's scanned pages,
    /// with several times the memory.
    static var libraryCheck: DoctorCheck {
        cqpdf_load() != 0
            ? .ok("libqpdf", "loads (a PDF's scanned pages are decoded from their image streams)")
            : .warn("libqpdf", libraryMissing + "; poppler decodes a PDF's scanned pages, with several times the memory",
                    fix: "sudo apt install libqpdf29")
    }

    /// Page `index`'s one image, decoded in grey at its own resolution (from the `area` it covers,
    /// in square points); nil when qpdf cannot find it, or it is of a kind poppler is left to
    /// decode (CCITT, JBIG2, JPEG 2000, indexed or CMYK colour, a mask, over `maxPixels`).
    func image(ofPage index: Int, area: Double, maxPixels: Int) -> LeptonicaImage? {
        guard let stream = stream(ofPage: index, maxPixels: maxPixels) else { return nil }
        return stream.decoded(dpi: PDFDocument.dpi(width: Int(stream.image.width), height: Int(stream.image.height), area: area))
    }

    private func stream(ofPage index: Int, maxPixels: Int) -> ImageStream? {
        state.withLock { state in
            if case .unopened(let bytes) = state {
                let opened = bytes.withUnsafeBufferPointer { cqpdf_open($0.baseAddress, $0.count) }
                state = opened.map(State.open) ?? .unreadable
            }
            guard case .open(let document) = state else { return nil }
            var image = cqpdf_image()
            guard cqpdf_page_image(document, Int32(index), maxPixels, &image) != 0 else { return nil }
            return ImageStream(image)
        }
    }

    /// Owns an image's raw stream, copied out of the document, until it is decoded.
    private final class ImageStream {
        private(set) var image: cqpdf_image

        init(_ image: cqpdf_image) { self.image = image }

        deinit { cqpdf_image_free(&image) }

        /// A JPEG is read by leptonica (its luminance alone), any other stream by cqpdf.
        func decoded(dpi: Int) -> LeptonicaImage? {
            guard ctess_load() != 0 else { return nil }
            if image.filter == CQPDF_FILTER_DCT {
                return ctess_pix_read_jpeg_gray(image.data, image.size, image.width, image.height, Int32(dpi))
                    .map { LeptonicaImage(taking: $0, dpi: dpi) }
            }
            // Decoded straight into leptonica's image: no second copy of the page's pixels.
            var rows: UnsafeMutablePointer<UInt8>?, stride = 0
            guard let pix = ctess_pix_gray_rows(image.width, image.height, &rows, &stride) else { return nil }
            let decoded = LeptonicaImage(taking: pix, dpi: dpi)
            guard let rows, withUnsafePointer(to: image, { cqpdf_image_gray($0, rows, stride) }) != 0 else { return nil }
            ctess_pix_gray_filled(pix, image.width, image.height, Int32(dpi))
            return decoded
        }
    }
}
