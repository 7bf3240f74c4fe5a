import CTesseract
import IngestCore

/// Tesseract's orientation and script detection (`osd.traineddata`): which way up a page lies.
/// Owns one `TessBaseAPI` loaded with `osd` only, shared by every engine of a scan and loaded
/// when a page first needs it: most pages read well as they lie and never ask (detection costs
/// about as much as reading a page, and the model 25 MB).
final class OrientationDetector: Sendable {
    private enum State { case unloaded, loaded(OpaquePointer), unavailable }
    private let state = Locked<State>(.unloaded)

    /// The orientation confidence a turn needs: paperless-ngx's default (its
    /// `PAPERLESS_OCR_ROTATE_PAGES_THRESHOLD`, handed to OCRmyPDF, whose own default is 14).
    /// Below it a page stays as it lies.
    static let minimumConfidence: Float = 12

    deinit { state.withLock { if case .loaded(let osd) = $0 { ctess_delete(osd) } } }

    static var dataPath: String { TesseractLanguages.folder + "/osd.traineddata" }
    static var dataInstalled: Bool { FileSystem.exists(dataPath) }

    /// `doctor`: whether pages can be turned upright.
    static var dataCheck: DoctorCheck {
        dataInstalled
            ? .ok("orientation data", "osd.traineddata installed in \(TesseractLanguages.folder)")
            : .warn("orientation data", "osd.traineddata not installed in \(TesseractLanguages.folder): pages scanned sideways or upside down are read as they lie",
                    fix: "sudo apt install tesseract-ocr-osd")
    }

    /// The quarter turns clockwise that make `page` upright, when detection is sure enough; nil
    /// when it is not (too little text), or the orientation data is missing.
    func clockwiseQuartersToUpright(_ page: LeptonicaImage) -> Int? {
        // The page's address crosses into the lock as a number: Tesseract copies the pixels in
        // `SetImage` and keeps no reference to them past this call.
        let address = UInt(bitPattern: page.pointer)
        return state.withLock { state in
            guard let osd = OrientationDetector.load(&state), let pixels = OpaquePointer(bitPattern: address) else { return nil }
            ctess_set_image_pix(osd, pixels)
            defer { ctess_clear(osd) }
            var degrees: Int32 = 0, confidence: Float = 0
            // Detection gives how far the page is turned clockwise; turning back is the rest of a full turn.
            guard ctess_detect_orientation(osd, &degrees, &confidence) != 0, confidence >= OrientationDetector.minimumConfidence,
                  degrees % 90 == 0 else { return nil }
            return (4 - Int(degrees) / 90 % 4) % 4
        }
    }

    private static func load(_ state: inout State) -> OpaquePointer? {
        switch state {
        case .loaded(let osd): return osd
        case .unavailable: return nil
        case .unloaded:
            state = .unavailable
            guard dataInstalled, ctess_load() != 0, let api = ctess_create() else { return nil }
            _ = ctess_set_variable(api, "debug_file", "/dev/null")
            guard ctess_init_osd(api) == 0 else { ctess_delete(api); return nil }
            state = .loaded(api)
            return api
        }
    }
}

extension LeptonicaImage {
    /// Straightens a page a sheet lay a few degrees crooked for: leptonica finds the skew of its
    /// lines (within ±7°) and turns it back when it is sure (and it is 0.1° or more).
    func deskew() {
        var degrees: Float = 0
        _ = apply { ctess_pix_deskew($0, &degrees) }
    }

    /// Turns the page `quarters` quarter turns clockwise; false when leptonica cannot.
    func turn(clockwiseQuarters quarters: Int) -> Bool {
        apply { ctess_pix_rotate_orth($0, Int32(quarters)) }
    }
}
