import CTesseract
#if canImport(Glibc)
import Glibc
#endif

/// One page's pixels, from the moment they are decoded until Tesseract has read them.
enum PageImage {
    /// An image file's page, decoded by leptonica.
    case pix(LeptonicaImage)
    /// A PDF page rendered by poppler.
    case gray(GrayBitmap)
}

/// Owns a leptonica `PIX`.
final class LeptonicaImage {
    let pointer: OpaquePointer

    /// Decodes page `page` of `bytes` (PNG, JPEG, TIFF); nil when leptonica cannot.
    init?(_ bytes: [UInt8], page: Int, tiff: Bool) {
        guard ctess_load() != 0 else { return nil }
        let decoded = bytes.withUnsafeBufferPointer { buffer in
            tiff ? ctess_pix_read_tiff_page(buffer.baseAddress, buffer.count, Int32(page)) : ctess_pix_read(buffer.baseAddress, buffer.count)
        }
        guard let decoded else { return nil }
        pointer = decoded
    }

    deinit { ctess_pix_destroy(pointer) }

    /// How many pages a TIFF holds (up to `limit`), from its directories alone.
    static func tiffPageCount(_ bytes: [UInt8], limit: Int) -> Int {
        guard ctess_load() != 0 else { return 0 }
        return bytes.withUnsafeBufferPointer { buffer in
            var count = 0
            while count < limit, ctess_tiff_has_page(buffer.baseAddress, buffer.count, Int32(count)) != 0 { count += 1 }
            return count
        }
    }
}

/// Owns a `malloc`ed 8-bit grey bitmap, one byte per pixel, rows without padding.
final class GrayBitmap {
    let pixels: UnsafeMutablePointer<UInt8>
    let width: Int, height: Int
    /// The resolution it was rendered at, which Tesseract's size rules need.
    let dpi: Int

    init(taking pixels: UnsafeMutablePointer<UInt8>, width: Int, height: Int, dpi: Int) {
        self.pixels = pixels; self.width = width; self.height = height; self.dpi = dpi
    }

    deinit { free(pixels) }
}
