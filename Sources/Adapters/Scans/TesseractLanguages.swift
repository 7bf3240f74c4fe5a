import IngestCore

/// `Languages=`: Tesseract's language codes joined by `+` (`eng`, `deu+eng`), in the order
/// Tesseract tries them. Each needs its `<code>.traineddata`, which a Debian package adds.
enum TesseractLanguages {
    /// Where Tesseract looks for traineddata: `$TESSDATA_PREFIX`, else Debian's folder for Tesseract 5.
    static var folder: String {
        let prefix = FileSystem.environment("TESSDATA_PREFIX").flatMap { $0.isEmpty ? nil : $0 } ?? "/usr/share/tesseract-ocr/5/tessdata"
        return prefix.hasSuffix("/") ? String(prefix.dropLast()) : prefix
    }

    /// Why `languages` cannot be used, as one line naming what to install; nil when every code
    /// is well formed and installed.
    static func problem(with languages: String) -> String? {
        let codes = languages.split(separator: "+", omittingEmptySubsequences: false).map(String.init)
        if let bad = codes.first(where: { !isCode($0) }) {
            return "\(bad.isEmpty ? "an empty code" : bad) is no Tesseract language code; write codes such as eng or deu+eng"
        }
        let missing = codes.filter { !FileSystem.exists(folder + "/" + $0 + ".traineddata") }
        guard !missing.isEmpty else { return nil }
        let files = missing.map { $0 + ".traineddata" }.joined(separator: ", ")
        let packages = missing.map(package).joined(separator: " ")
        return "\(files) not installed in \(folder); install \(packages)"
    }

    /// Debian's package for a code: `chi_sim` is in tesseract-ocr-chi-sim; the `script/` models
    /// are in packages named by ISO 15924 codes (`script/Latin` in tesseract-ocr-script-latn).
    static func package(_ code: String) -> String {
        if code.hasPrefix("script/") { return "the tesseract-ocr-script-* package of \(code)" }
        return "tesseract-ocr-" + code.lowercased().replacing("_", with: "-")
    }

    /// Letters, digits and `_` (`chi_sim`), or a `script/` name: never a path out of the folder.
    private static func isCode(_ code: String) -> Bool {
        let name = code.hasPrefix("script/") ? code.dropFirst("script/".count) : Substring(code)
        return !name.isEmpty && name.utf8.allSatisfy { $0 == UInt8(ascii: "_") || (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) }
    }
}
