import CTesseract
import IngestCore

/// Turns a page upright before it is recognized: by Tesseract's orientation and script detection
/// (`osd.traineddata`) where the image does not say itself which way is up, then by leptonica's
/// skew search for the few degrees a sheet lies crooked on the glass. Owns one `TessBaseAPI`
/// loaded with `osd` only; one per engine, used under that engine's lock.
final class PageStraightener {
    private let osd: OpaquePointer?

    /// The orientation confidence a turn needs: paperless-ngx's default (its
    /// `PAPERLESS_OCR_ROTATE_PAGES_THRESHOLD`, handed to OCRmyPDF, whose own default is 14).
    /// Below it a page stays as it lies: a turn read wrong costs the whole page.
    static let minimumConfidence: Float = 12

    /// Without `osd.traineddata` every page keeps its quarter turn; only the deskew runs.
    init() {
        guard PageStraightener.orientationDataInstalled, let api = ctess_create() else { osd = nil; return }
        _ = ctess_set_variable(api, "debug_file", "/dev/null")
        guard ctess_init_osd(api) == 0 else { ctess_delete(api); osd = nil; return }
        osd = api
    }

    deinit { if let osd { ctess_delete(osd) } }

    static var orientationData: String { TesseractLanguages.folder + "/osd.traineddata" }
    static var orientationDataInstalled: Bool { FileSystem.exists(orientationData) }

    /// `doctor`: whether pages can be turned upright.
    static var orientationCheck: DoctorCheck {
        orientationDataInstalled
            ? .ok("orientation data", "osd.traineddata installed in \(TesseractLanguages.folder)")
            : .warn("orientation data", "osd.traineddata not installed in \(TesseractLanguages.folder): pages scanned sideways or upside down are read as they lie",
                    fix: "sudo apt install tesseract-ocr-osd")
    }

    /// Turns `page` upright (unless it has its own orientation) and straightens its skew.
    func straighten(_ page: LeptonicaImage) {
        if !page.hasOwnOrientation, let quarters = clockwiseQuartersToUpright(page), quarters != 0 {
            _ = page.apply { ctess_pix_rotate_orth($0, Int32(quarters)) }
        }
        var degrees: Float = 0
        _ = page.apply { ctess_pix_deskew($0, &degrees) }
    }

    /// The quarter turns clockwise that make `page` upright, when OSD is sure enough.
    private func clockwiseQuartersToUpright(_ page: LeptonicaImage) -> Int? {
        guard let osd else { return nil }
        ctess_set_image_pix(osd, page.pointer)
        defer { ctess_clear(osd) }
        var degrees: Int32 = 0, confidence: Float = 0
        // OSD gives how far the page is turned clockwise; turning it back is the rest of a full turn.
        guard ctess_detect_orientation(osd, &degrees, &confidence) != 0, confidence >= PageStraightener.minimumConfidence,
              degrees % 90 == 0 else { return nil }
        return (4 - Int(degrees) / 90 % 4) % 4
    }
}
