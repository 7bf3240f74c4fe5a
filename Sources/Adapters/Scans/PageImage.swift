import CTesseract
#if canImport(Glibc)
import Glibc
#endif

/// Owns a leptonica `PIX`: one page's pixels, from the moment they are decoded until Tesseract
/// has read them.
final class LeptonicaImage {
    private(set) var pointer: OpaquePointer
    /// Whether the image says itself which way is up (an EXIF or TIFF Orientation other than the
    /// default), so orientation detection leaves it as it is.
    let hasOwnOrientation: Bool
    /// The resolution a PDF page's pixels have (an image file's is in the image itself).
    let dpi: Int?

    /// Decodes page `page` of `bytes` (PNG, JPEG, TIFF) and turns it upright by its EXIF
    /// `orientation` (leptonica applies a TIFF's own, not a JPEG's); nil when leptonica cannot.
    init?(_ bytes: [UInt8], page: Int, tiff: Bool, orientation: Int? = nil, ownOrientation: Bool = false) {
        guard ctess_load() != 0 else { return nil }
        let decoded = bytes.withUnsafeBufferPointer { buffer in
            tiff ? ctess_pix_read_tiff_page(buffer.baseAddress, buffer.count, Int32(page)) : ctess_pix_read(buffer.baseAddress, buffer.count)
        }
        guard var pix = decoded else { return nil }
        for turn in LeptonicaImage.turns(orientation ?? 1) {
            let turned: OpaquePointer? = switch turn {
            case .clockwise(let quarters): ctess_pix_rotate_orth(pix, Int32(quarters))
            case .mirrorLeftRight: ctess_pix_flip_lr(pix)
            case .mirrorTopBottom: ctess_pix_flip_tb(pix)
            }
            ctess_pix_destroy(pix)
            guard let turned else { return nil }
            pix = turned
        }
        pointer = pix
        hasOwnOrientation = ownOrientation
        dpi = nil
    }

    /// A PDF page's grey pixels, copied (the bitmap can be freed once this returns).
    convenience init?(_ bitmap: GrayBitmap) {
        guard ctess_load() != 0, let pix = ctess_pix_from_gray(bitmap.pixels, Int32(bitmap.width), Int32(bitmap.height), Int32(bitmap.dpi))
        else { return nil }
        self.init(taking: pix, dpi: bitmap.dpi)
    }

    /// A PDF page's pixels, decoded by leptonica at `dpi`; this image destroys `pix`.
    init(taking pix: OpaquePointer, dpi: Int) {
        pointer = pix
        hasOwnOrientation = false
        self.dpi = dpi
    }

    /// Replaces the pixels with what `transform` makes of them; false (the old pixels kept) when
    /// it makes nothing.
    func apply(_ transform: (OpaquePointer) -> OpaquePointer?) -> Bool {
        guard let made = transform(pointer) else { return false }
        ctess_pix_destroy(pointer)
        pointer = made
        return true
    }

    private enum Turn { case clockwise(Int), mirrorLeftRight, mirrorTopBottom }

    /// What makes an image with EXIF orientation `value` upright (TIFF 6.0's Orientation tag).
    private static func turns(_ value: Int) -> [Turn] {
        switch value {
        case 2: [.mirrorLeftRight]
        case 3: [.clockwise(2)]
        case 4: [.mirrorTopBottom]
        case 5: [.clockwise(1), .mirrorLeftRight]
        case 6: [.clockwise(1)]
        case 7: [.clockwise(3), .mirrorLeftRight]
        case 8: [.clockwise(3)]
        default: []
        }
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
    /// Its resolution, which Tesseract's size rules need.
    let dpi: Int

    init(taking pixels: UnsafeMutablePointer<UInt8>, width: Int, height: Int, dpi: Int) {
        self.pixels = pixels; self.width = width; self.height = height; self.dpi = dpi
    }

    deinit { free(pixels) }
}
