import CTesseract
import Dispatch
import IngestCore

/// One Tesseract engine (a `TessBaseAPI`), initialised for one `Languages=` string. It reads one
/// page at a time; its handle is under a lock, so the engine can move between worker threads.
final class TesseractEngine: Sendable {
    private let handle: Locked<(api: OpaquePointer, straightener: PageStraightener?)>

    /// Loads libtesseract and the languages' traineddata (tens of MB, a fraction of a second),
    /// and `osd.traineddata` when `straightens` (a few MB).
    init(languages: String, straightens: Bool) throws(ScanError) {
        guard ctess_load() != 0 else { throw ScanError(TesseractEngine.libraryMissing + "; install " + TesseractEngine.libraryPackages) }
        guard let api = ctess_create() else { throw ScanError("TessBaseAPICreate failed") }
        // Tesseract's own notes (resolution guesses, empty pages) would go to stderr.
        _ = ctess_set_variable(api, "debug_file", "/dev/null")
        guard ctess_init(api, nil, languages) == 0 else {
            ctess_delete(api)
            throw ScanError("Tesseract could not load the languages \(languages)")
        }
        handle = Locked((api, straightens ? PageStraightener() : nil))
    }

    deinit { handle.withLock { ctess_delete($0.api) } }

    static let libraryMissing = "libtesseract.so.5 or liblept.so.5 is not installed"
    static let libraryPackages = "libtesseract5 liblept5"

    /// `doctor`: libtesseract and leptonica load.
    static var libraryCheck: DoctorCheck {
        guard ctess_load() != 0, let version = ctess_version() else {
            return .fail("libtesseract", libraryMissing, fix: "sudo apt install \(libraryPackages)")
        }
        return .ok("libtesseract", "Tesseract \(String(cString: version)) and leptonica load")
    }

    /// The text Tesseract reads on the page `decode` makes, turned upright and deskewed, and the
    /// confidence (0–100) of each word; nil when `decode` makes none. The page is decoded under
    /// the engine's lock, so its pixels never leave the call that reads them.
    func recognize(_ decode: @Sendable () -> LeptonicaImage?) -> RecognizedPage? {
        handle.withLock { engine in
            let api = engine.api
            guard TesseractEngine.setImage(api, decode(), straightener: engine.straightener) else { return nil }
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
    }

    /// Gives Tesseract the page, straightened; false when there is none. Tesseract copies the
    /// pixels, so the decoded page is freed when this returns, before recognition: one page less
    /// per engine (9 MB for an A4 page at 300 dpi).
    private static func setImage(_ api: OpaquePointer, _ page: consuming LeptonicaImage?, straightener: PageStraightener?) -> Bool {
        guard let page else { return false }
        straightener?.straighten(page)
        ctess_set_image_pix(api, page.pointer)
        if let dpi = page.dpi { ctess_set_resolution(api, Int32(dpi)) }
        return true
    }
}

/// What one page gave: its text and the confidence of each of its words.
struct RecognizedPage: Sendable {
    var text: String
    var confidences: [Int]
}

/// At most `engines` engines (one per core unless `Jobs=` says otherwise), each made when first needed and reused for page after page: loading
/// a language costs as much as reading a small page. A page waits for a free engine.
final class EnginePool: Sendable {
    let languages: String
    /// Whether pages are turned upright by orientation detection (`Straighten=`).
    let straightens: Bool
    private let idle = Locked<[TesseractEngine]>([])
    private let slots: DispatchSemaphore

    init(languages: String, engines: Int, straightens: Bool) {
        self.languages = languages
        self.straightens = straightens
        slots = DispatchSemaphore(value: max(1, engines))
    }

    func recognize(_ decode: @Sendable () -> LeptonicaImage?) throws(ScanError) -> RecognizedPage? {
        slots.wait()
        defer { slots.signal() }
        let engine: TesseractEngine
        if let free = idle.withLock({ $0.popLast() }) { engine = free } else { engine = try TesseractEngine(languages: languages, straightens: straightens) }
        defer { idle.withLock { $0.append(engine) } }
        let page = engine.recognize(decode)
        ctess_release_page_memory()
        return page
    }
}
