import FoundationEssentials
import IngestCore
#if canImport(Glibc)
import Glibc
#endif

/// `Type=scans`: the recognized text of scanned documents (PNG, JPEG, multi-page TIFF, PDF),
/// never their images. One `scan` item per file, keyed by the SHA-256 of its bytes.
///
/// ``TrackedFiles`` keeps each file's stat and content hash, so an unchanged file is not read
/// again, and (``TrackedFiles/adoptsCopies``) a moved, renamed or copied file takes over the
/// item its bytes already gave instead of being recognized again. A PDF page's own text is used
/// where it is the page (``TextLayer``); other pages are turned upright and deskewed
/// (``OrientationDetector``) and recognized by Tesseract, on every core (`Jobs=` engines at most).
public struct ScansAdapter: DeviceAdapter {
    public static let type = "scans"
    public static let summary = "recognized text (Tesseract OCR) of scanned PNG, JPEG, TIFF and PDF documents, pages turned upright and deskewed first; a PDF page's own text via poppler when it holds the page"
    enum Key {
        static let path = ConfigKey("Path", repeated: .path, "a folder scanned recursively for PNG, JPEG, TIFF and PDF files")
        static let languages = ConfigKey("Languages", .string, default: "eng",
                                         "Tesseract language codes joined by + (deu+eng), in the order tried")
        static let exclude = ConfigKey("Exclude", repeated: .string, "a glob over the whole path to leave out")
        static let jobs = ConfigKey("Jobs", .integer, default: "0",
                                    "pages recognized at once, each by its own Tesseract engine (about 30 MB each); 0 is one per core")
        static let straighten = ConfigKey("Straighten", .bool, default: "yes",
                                          "turn pages scanned sideways or upside down upright (Tesseract's orientation detection) and deskew them")
    }
    public static let configKeys: [any ConfigKeyProtocol] = [Key.path, Key.languages, Key.exclude, Key.jobs, Key.straighten]
    public static let sampleConfig = String(decoding: PackageResources.scans_conf, as: UTF8.self)

    static let extensions: Set<String> = ["png", "jpg", "jpeg", "tif", "tiff", "pdf"]

    let files: TrackedFiles
    let languages: String
    /// Tesseract engines at most, so pages read at once.
    let engines: Int
    /// Whether pages are turned upright and deskewed before they are recognized.
    let straightens: Bool

    public init(config: AdapterConfig) throws(ConfigError) {
        let roots = try config.section.value(Key.path, where: { !$0.isEmpty }, else: { _ in "missing; name at least one folder to scan" })
        // Checked here, so a missing language is one line before any file is read.
        languages = try config.section.value(Key.languages, where: { TesseractLanguages.problem(with: $0) == nil },
                                             else: { TesseractLanguages.problem(with: $0) ?? "" })
        let jobs = try config.section.value(Key.jobs, where: { (0...256).contains($0) }, else: { _ in "must be 0 (one per core) to 256" })
        engines = jobs == 0 ? ProcessInfo.processInfo.activeProcessorCount : jobs
        straightens = config.section[Key.straighten]
        var files = TrackedFiles(roots: roots, excludes: config.section[Key.exclude], accepts: ScansAdapter.isScan)
        files.maxFileBytes = 256 << 20            // a long scanned PDF; one per core is in memory at a time
        files.readBatch = 2 * engines             // progress every few files
        files.adoptsCopies = true
        self.files = files
    }

    public var watchedPaths: [String] { files.roots }

    /// `doctor`: every `Path=` exists, the languages are installed (else `init` has already
    /// failed, naming the package), the orientation data is (with `Straighten=yes`), and
    /// libtesseract, leptonica and poppler-glib load, and whether libqpdf does.
    public func doctorChecks() async -> [DoctorCheck] {
        DoctorCheck.paths(watchedPaths)
            + [.ok("Languages=\(languages)", "installed in \(TesseractLanguages.folder)")]
            + (straightens ? [OrientationDetector.dataCheck] : [])
            + [TesseractEngine.libraryCheck, PDFDocument.libraryCheck, QPDFDocument.libraryCheck]
    }

    public func scan(since anchor: Anchor, into sink: some ItemSink) async throws {
        let recognizer = ScanRecognizer(pool: EnginePool(languages: languages, engines: engines, straightens: straightens))
        try await files.scan(since: anchor, into: sink) { [languages] path, bytes in
            ScansAdapter.parse(path, bytes, recognizer: recognizer, languages: languages)
        }
    }

    static func parse(_ path: String, _ bytes: [UInt8], recognizer: ScanRecognizer, languages: String) -> TrackedFiles.Parse {
        guard let format = ScanFormat.sniff(bytes) else { return .failed("not a PNG, JPEG, TIFF or PDF file (by its first bytes); skipped") }
        var meta: PhotoMetadata?
        do {
            // The photo reader walks a PNG's chunks and a JPEG's segments: one that breaks is
            // reported here, in one line, and not handed to libpng or libjpeg, which would print their own.
            if format == .png || format == .jpeg { meta = try PhotoGeotagReader.read(path: path).0 }
            if format == .tiff { meta = try? PhotoGeotagReader.read(path: path).0 }
        } catch {
            return .failed("\(error.reason); skipped")
        }
        let reading: ScanRecognizer.Reading
        do { reading = try recognizer.read(bytes, as: format, orientation: meta?.orientation) } catch { return .failed("\(error.reason); skipped") }
        let item = ScanItem.make(reading, key: Digest.sha256Hex(bytes), capturedAt: capturedAt(path, meta: meta, pdfDate: reading.created),
                                 languages: languages, fileName: path.lastPathComponent, size: bytes.count)
        return .parsed(TrackedFiles.FileItems([item]), warnings: reading.warnings, refreshAfter: nil)
    }

    /// EXIF DateTimeOriginal for an image, the CreationDate for a PDF, else the file's mtime.
    static func capturedAt(_ path: String, meta: PhotoMetadata?, pdfDate: (unixSeconds: Int64, offsetSeconds: Int)?) -> String {
        if let pdfDate { return CaptureTime.text(unixSeconds: pdfDate.unixSeconds, offsetSeconds: pdfDate.offsetSeconds) }
        if let meta, let taken = CaptureTime.exif(meta) { return taken }
        var st = stat()
        guard stat(path, &st) == 0 else { return CaptureTime.modification(nanoseconds: Int64(Date().timeIntervalSince1970 * 1e9)) }
        return CaptureTime.modification(nanoseconds: FileStamp(st).mtime)
    }

    /// By extension, any case: it runs for every file of every re-scan.
    static func isScan(_ name: String) -> Bool {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return false }
        let ext = name[name.index(after: dot)...]
        return ext.utf8.count <= 4 && extensions.contains(ext.lowercased())
    }
}
