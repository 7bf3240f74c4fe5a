import Dispatch
import IngestCore

/// Why a scanned file gave no item, as one line.
struct ScanError: Error, Sendable, CustomStringConvertible {
    var reason: String
    init(_ reason: String) { self.reason = reason }
    var description: String { reason }
}

/// The kinds of file the scans adapter reads, told by their first bytes.
enum ScanFormat: Sendable {
    case png, jpeg, tiff, pdf

    static func sniff(_ bytes: [UInt8]) -> ScanFormat? {
        // A PDF's header may follow some junk, within the first 1024 bytes (PDF 1.7, annex H).
        let marker = Array("%PDF-".utf8)
        let head = bytes.prefix(1024)
        if head.count >= marker.count, (0...(head.count - marker.count)).contains(where: { head[$0..<($0 + marker.count)].elementsEqual(marker) }) {
            return .pdf
        }
        switch try? PhotoGeotagReader.sniff(Array(bytes.prefix(64))) {
        case .png: return .png
        case .jpeg: return .jpeg
        case .tiff: return .tiff
        default: return nil
        }
    }
}

/// Reads the text of a scanned file: a PDF page's own text where it has one, else what
/// Tesseract reads on its image. The pages of a file are read at once, one per engine of the pool.
struct ScanRecognizer: Sendable {
    let pool: EnginePool
    /// Image-only PDF pages are rendered at this resolution, as scanners scan.
    static let renderDPI = 300
    /// Pages read of one file at most, and pixels of one rendered page at most (A0 at 300 dpi).
    static let maxPages = 2000, maxPixels = 140_000_000

    /// What a whole file gave.
    struct Reading: Sendable {
        var text: String
        var pages: Int
        /// The mean word confidence, 0–100; words of a PDF's own text count as 100.
        var confidence: Double
        /// Whether any page was read by Tesseract (not only from a text layer).
        var recognized: Bool
        var warnings: [String]
        /// A PDF's CreationDate: seconds since the epoch and the date's own UTC offset.
        var created: (unixSeconds: Int64, offsetSeconds: Int)?
    }

    private enum Outcome: Sendable {
        case layer(String)
        /// What Tesseract read, and the lines of the page's text layer it did not read.
        case recognized(RecognizedPage, layerLines: [String])
        case unreadable(String)
    }

    /// - Parameter orientation: An image's EXIF Orientation, applied to a PNG's or JPEG's pixels.
    func read(_ bytes: [UInt8], as format: ScanFormat, orientation: Int? = nil) throws(ScanError) -> Reading {
        let source = try PageSource(bytes, format, orientation: orientation)
        let count = source.count
        guard count > 0 else { throw ScanError("no page can be decoded (corrupt or truncated?)") }
        let outcomes = Locked([Outcome](repeating: .unreadable(""), count: count))
        DispatchQueue.concurrentPerform(iterations: count) { index in
            let outcome = page(index, of: source)
            outcomes.withLock { $0[index] = outcome }
        }
        var reading = try Self.combine(outcomes.withLock { $0 })
        if case .pdf(let document) = source { reading.created = document.creationDate }
        return reading
    }

    private func page(_ index: Int, of source: PageSource) -> Outcome {
        let layer = source.textLayer(of: index)
        if let layer, TextLayer.isWholePage(layer) || !source.imageCoversMost(of: index) { return .layer(layer) }
        do {
            guard let page = try pool.recognize({ source.image(of: index) }) else { return .unreadable("cannot be decoded") }
            return .recognized(page, layerLines: layer.map { TextLayer.lines(of: $0, notIn: page.text) } ?? [])
        } catch {
            return .unreadable(error.reason)
        }
    }

    /// The pages' texts in order, separated by form feeds as `tesseract` and `pdftotext` write them.
    private static func combine(_ outcomes: [Outcome]) throws(ScanError) -> Reading {
        var texts: [String] = [], warnings: [String] = []
        var confidenceSum = 0, words = 0, recognized = false
        for (index, outcome) in outcomes.enumerated() {
            switch outcome {
            case .layer(let text):
                let count = text.split(whereSeparator: \.isWhitespace).count
                confidenceSum += 100 * count; words += count
                texts.append(text.trimmed)
            case .recognized(let page, let layerLines):
                recognized = true
                confidenceSum += page.confidences.reduce(0, +); words += page.confidences.count
                let layerWords = layerLines.reduce(0) { $0 + $1.split(whereSeparator: \.isWhitespace).count }
                confidenceSum += 100 * layerWords; words += layerWords
                texts.append(([page.text.trimmed] + layerLines).filter { !$0.isEmpty }.joined(separator: "\n"))
            case .unreadable(let reason):
                warnings.append("page \(index + 1) of \(outcomes.count): \(reason); its text is missing")
                texts.append("")
            }
        }
        guard warnings.count < outcomes.count else {
            throw ScanError(outcomes.count == 1 ? "the image cannot be decoded (corrupt or truncated?)" : "none of its \(outcomes.count) pages can be decoded")
        }
        let confidence = words == 0 ? 0 : (Double(confidenceSum) / Double(words) * 10).rounded() / 10
        return Reading(text: texts.joined(separator: "\n\u{0C}\n"), pages: outcomes.count, confidence: confidence,
                       recognized: recognized, warnings: warnings)
    }
}

/// The rule for a PDF page's own text: a scanned page may carry a line of it (a scanner's stamp,
/// a watermark, a page number) that says nothing of what the page shows.
enum TextLayer {
    /// Non-space characters a page's text needs to count as the page (a short letter has hundreds).
    static let wholePageCharacters = 50

    static func isWholePage(_ text: String) -> Bool {
        var count = 0
        for character in text.unicodeScalars where !character.properties.isWhitespace {
            count += 1
            if count >= wholePageCharacters { return true }
        }
        return false
    }

    /// The lines of `layer` whose words Tesseract did not read in `recognized` (at least 80 % of
    /// a line's words read counts as read: a watermark the scan shows is kept once).
    static func lines(of layer: String, notIn recognized: String) -> [String] {
        let read = Set(words(recognized))
        return layer.split(whereSeparator: \.isNewline).map { $0.trimmed }.filter { line in
            let own = words(line)
            return !own.isEmpty && own.filter(read.contains).count * 5 < own.count * 4
        }
    }

    /// Lower-case runs of letters and digits.
    private static func words(_ text: String) -> [String] {
        text.lowercased().split(whereSeparator: { !$0.isLetter && !$0.isNumber }).map(String.init)
    }
}

/// A file's pages, each decoded (or its text layer taken) on the thread that recognizes it.
private enum PageSource: Sendable {
    case image([UInt8], orientation: Int?)
    case tiff([UInt8], pages: Int, ownOrientation: Bool)
    case pdf(PDFDocument)

    /// - Parameter orientation: The EXIF or TIFF Orientation tag. A camera's (any value in a PNG
    ///   or JPEG) says which way is up; in a TIFF only a turn does, as every TIFF writer puts 1.
    init(_ bytes: [UInt8], _ format: ScanFormat, orientation: Int?) throws(ScanError) {
        switch format {
        case .png, .jpeg: self = .image(bytes, orientation: orientation)
        case .tiff:
            self = .tiff(bytes, pages: LeptonicaImage.tiffPageCount(bytes, limit: ScanRecognizer.maxPages),
                         ownOrientation: (2...8).contains(orientation ?? 1))
        case .pdf:
            let document = try PDFDocument(bytes)
            guard document.pageCount <= ScanRecognizer.maxPages else {
                throw ScanError("\(document.pageCount) pages is over the \(ScanRecognizer.maxPages)-page limit; skipped")
            }
            self = .pdf(document)
        }
    }

    var count: Int {
        switch self {
        case .image: 1
        case .tiff(_, let pages, _): pages
        case .pdf(let document): document.pageCount
        }
    }

    /// Page `index`'s own text, for a PDF page that has one.
    func textLayer(of index: Int) -> String? {
        if case .pdf(let document) = self { return document.text(ofPage: index) }
        return nil
    }

    /// Whether an image covers most of page `index`: an image file's page always does.
    func imageCoversMost(of index: Int) -> Bool {
        if case .pdf(let document) = self { return document.images(ofPage: index).coverMostOfThePage }
        return true
    }

    /// Page `index`'s pixels; nil when it cannot be decoded. A PDF page that is one scanned image
    /// is that image, decoded once at its own resolution; any other is rendered at 300 dpi.
    func image(of index: Int) -> LeptonicaImage? {
        switch self {
        case .image(let bytes, let orientation):
            return LeptonicaImage(bytes, page: 0, tiff: false, orientation: orientation, ownOrientation: orientation != nil)
        case .tiff(let bytes, _, let ownOrientation): return LeptonicaImage(bytes, page: index, tiff: true, ownOrientation: ownOrientation)
        case .pdf(let document):
            let images = document.images(ofPage: index)
            if images.isOneFullPageImage,
               let image = document.image(images.largestID, ofPage: index, area: images.largestArea, maxPixels: ScanRecognizer.maxPixels) {
                return image
            }
            return document.render(page: index, dpi: ScanRecognizer.renderDPI, maxPixels: ScanRecognizer.maxPixels).flatMap(LeptonicaImage.init)
        }
    }
}
