import CTesseract
import Dispatch
import IngestCore

/// One Tesseract engine (a `TessBaseAPI`), initialised for one `Languages=` string. It reads one
/// page at a time; its handle is under a lock, so the engine can move between worker threads.
final class TesseractEngine: Sendable {
    private let handle: Locked<OpaquePointer>

    /// Loads libtesseract and the languages' traineddata (tens of MB, a fraction of a second).
    init(languages: String) throws(ScanError) {
        guard ctess_load() != 0 else { throw ScanError(TesseractEngine.libraryMissing + "; install " + TesseractEngine.libraryPackages) }
        guard let api = ctess_create() else { throw ScanError("TessBaseAPICreate failed") }
        // Tesseract's own notes (resolution guesses, empty pages) would go to stderr.
        _ = ctess_set_variable(api, "debug_file", "/dev/null")
        guard ctess_init(api, nil, languages) == 0 else {
            ctess_delete(api)
            throw ScanError("Tesseract could not load the languages \(languages)")
        }
        handle = Locked(api)
    }

    deinit { handle.withLock { ctess_delete($0) } }

    static let libraryMissing = "libtesseract.so.5 or liblept.so.5 is not installed"
    static let libraryPackages = "libtesseract5 liblept5"

    /// `doctor`: libtesseract and leptonica load.
    static var libraryCheck: DoctorCheck {
        guard ctess_load() != 0, let version = ctess_version() else {
            return .fail("libtesseract", libraryMissing, fix: "sudo apt install \(libraryPackages)")
        }
        return .ok("libtesseract", "Tesseract \(String(cString: version)) and leptonica load")
    }

    /// The text Tesseract reads on the page `decode` makes, and the confidence (0–100) of each
    /// word; nil when `decode` makes none. The page is decoded under the engine's lock, so its
    /// pixels never leave the call that reads them.
    ///
    /// - Parameter detector: With one (`Straighten=yes`), the page is deskewed first, and a page
    ///   that reads badly and has no orientation of its own is decoded again, turned upright when
    ///   detection is sure, and read again; the better reading is kept. Tesseract reads a page
    ///   turned a quarter clockwise as vertical lines by itself; upside down or turned the other
    ///   way its words come out at about half the confidence of an upright page's.
    func recognize(_ decode: @Sendable () -> LeptonicaImage?, detector: OrientationDetector?) -> RecognizedPage? {
        handle.withLock { api in
            guard let ownOrientation = TesseractEngine.setImage(api, decode(), deskew: detector != nil) else { return nil }
            let first = TesseractEngine.read(api)
            guard let detector, !ownOrientation, first.readsBadly, let page = decode(),
                  let quarters = detector.clockwiseQuartersToUpright(page), quarters != 0, page.turn(clockwiseQuarters: quarters),
                  TesseractEngine.setImage(api, consume page, deskew: true) != nil else { return first }
            let turned = TesseractEngine.read(api)
            return turned.meanConfidence > first.meanConfidence ? turned : first
        }
    }

    /// Recognizes the image set last: its text and word confidences.
    private static func read(_ api: OpaquePointer) -> RecognizedPage {
        defer { ctess_clear(api) }
        guard ctess_recognize(api) == 0 else { return RecognizedPage(text: "", confidences: []) }
        var text = ""
        if let utf8 = ctess_utf8_text(api) { text = String(cString: utf8); ctess_delete_text(utf8) }
        var confidences: [Int] = []
        if let words = ctess_word_confidences(api) {
            var i = 0
            while words[i] >= 0 { confidences.append(Int(words[i])); i += 1 }
            ctess_delete_ints(words)
        }
        return RecognizedPage(text: text, confidences: confidences)
    }

    /// Gives Tesseract the page (deskewed first when `deskew`); whether it has an orientation of
    /// its own, nil when there is no page. Tesseract copies the pixels, so the decoded page is
    /// freed when this returns, before recognition: one page less per engine (9 MB for an A4
    /// page at 300 dpi).
    private static func setImage(_ api: OpaquePointer, _ page: consuming LeptonicaImage?, deskew: Bool) -> Bool? {
        guard let page else { return nil }
        if deskew { page.deskew() }
        ctess_set_image_pix(api, page.pointer)
        if let dpi = page.dpi { ctess_set_resolution(api, Int32(dpi)) }
        return page.hasOwnOrientation
    }
}

/// What one page gave: its text and the confidence of each of its words.
struct RecognizedPage: Sendable {
    var text: String
    var confidences: [Int]

    var meanConfidence: Double { confidences.isEmpty ? 0 : Double(confidences.reduce(0, +)) / Double(confidences.count) }
    /// Below this mean word confidence a page may lie turned: an upright page of print reads at
    /// 90 or more, the same page upside down at 40 to 55.
    static let uprightConfidence = 75.0
    var readsBadly: Bool { meanConfidence < RecognizedPage.uprightConfidence }
}

/// At most `engines` engines (one per core unless `Jobs=` says otherwise), each made when first needed and reused for page after page: loading
/// a language costs as much as reading a small page. A page waits for a free engine.
final class EnginePool: Sendable {
    let languages: String
    /// Turns pages upright, shared by the engines; nil with `Straighten=no`.
    let detector: OrientationDetector?
    private let idle = Locked<[TesseractEngine]>([])
    private let slots: DispatchSemaphore

    init(languages: String, engines: Int, straightens: Bool) {
        self.languages = languages
        detector = straightens ? OrientationDetector() : nil
        slots = DispatchSemaphore(value: max(1, engines))
    }

    func recognize(_ decode: @Sendable () -> LeptonicaImage?) throws(ScanError) -> RecognizedPage? {
        slots.wait()
        defer { slots.signal() }
        let engine: TesseractEngine
        if let free = idle.withLock({ $0.popLast() }) { engine = free } else { engine = try TesseractEngine(languages: languages) }
        defer { idle.withLock { $0.append(engine) } }
        let page = engine.recognize(decode, detector: detector)
        ctess_release_page_memory()
        return page
    }
}
