/// Which Google Photos Takeout JSON sidecar of a folder belongs to a media file, by name alone,
/// so it serves photos and videos alike.
///
/// Takeout names a sidecar after the media's title, then bends the name in ways immich-go's and
/// google-photos-takeout-helper's issues record (cases in TakeoutSidecarMatcherTests):
/// - `IMG_1.jpg.json`, `IMG_1.jpg.supplemental-metadata.json`, and that suffix cut anywhere
///   (`.supplemental-metad.json`, `.suppl.json`, `IMG_1.jpg..json`);
/// - the name before `.json` cut at 46 (or 51) UTF-16 units, media extension and all;
/// - a duplicate's number moved behind the whole name: `IMG_1(1).jpg` ↔ `IMG_1.jpg(1).json`,
///   `IMG_1.jpg.supplemental-metadata(1).json`; on a cut name it may be missing altogether;
/// - an edited copy (`IMG_1-edited.jpg`, or the localized `-bearbeitet`, `-modifié`, …) has no
///   sidecar of its own and shares the original's;
/// - a title uploaded without extension: `IMG_1.json` for `IMG_1.jpg`.
struct TakeoutSidecarMatcher {
    /// A sidecar's name without `.json`, its duplicate number apart.
    private struct Stem: Hashable {
        var name: String
        var number: String?
    }

    private static let supplemental = "supplemental-metadata"
    private static let supplementalBytes = Array(supplemental.utf8)
    /// Where Takeout cuts the name in front of `.json`.
    private static let clipLengths = [46, 51]
    /// Suffixes Google Photos gives an edited copy, per language (google-photos-takeout-helper's
    /// `extras.dart`); compared in lower case.
    static let editedSuffixes = [
        "-edited", "-effects", "-smile", "-mix", "-edytowane", "-bearbeitet", "-bewerkt", "-編集済み", "-modificato",
        "-modifié", "-ha editado", "-editado", "-editat", "-отредактировано", "-已编辑", "-편집됨", "-düzenlendi",
        "-تم التعديل", "-संपादित", "-đã chỉnh sửa", "-แก้ไขแล้ว", "-diedit",
    ]

    private var sidecars: [Stem: String] = [:]

    /// Every `.json` file of one folder; the first name (in the order given) wins a clash.
    init(sidecarNames: some Sequence<String>) {
        for json in sidecarNames {
            guard let stem = TakeoutSidecarMatcher.stem(ofSidecar: json) else { continue }
            if sidecars[stem] == nil { sidecars[stem] = json }
            // `IMG_1.jpg.supplemental-meta` or `IMG_1.jpg.` also stands for `IMG_1.jpg`. On the
            // bytes: a folder of a Takeout holds thousands of sidecars.
            let name = stem.name.utf8
            if let dot = name.lastIndex(of: UInt8(ascii: ".")), dot > name.startIndex,
               TakeoutSidecarMatcher.supplementalBytes.starts(with: name[name.index(after: dot)...]),
               let before = String(name[..<dot]) {
                let shorter = Stem(name: before, number: stem.number)
                if sidecars[shorter] == nil { sidecars[shorter] = json }
            }
        }
    }

    /// Ends in `.json`, in any case.
    static func isSidecar(_ name: String) -> Bool { name.hasExtension("json") }

    /// The sidecar of the media file `name`, or nil.
    func sidecar(for name: String) -> String? {
        guard !sidecars.isEmpty else { return nil }
        let (plain, number) = TakeoutSidecarMatcher.splitNumber(media: name)
        if let found = lookup(plain, number) { return found }
        if let original = TakeoutSidecarMatcher.original(ofEdited: plain), let found = lookup(original, number) { return found }
        // A cut sidecar name that lost the duplicate's number: `…_.json` for `…_P(1).jpg`.
        if number != nil, let found = lookup(name, nil) { return found }
        return nil
    }

    private func lookup(_ name: String, _ number: String?) -> String? {
        if let found = sidecars[Stem(name: name, number: number)] { return found }
        let full = name + "." + TakeoutSidecarMatcher.supplemental
        for length in TakeoutSidecarMatcher.clipLengths where full.utf16.count > length {
            if let clipped = String(full.utf16.prefix(length)), let found = sidecars[Stem(name: clipped, number: number)] { return found }
        }
        if let dot = name.lastIndex(of: "."), dot > name.startIndex {
            return sidecars[Stem(name: String(name[..<dot]), number: number)]
        }
        return nil
    }

    /// `IMG_1.jpg(2).json` → `IMG_1.jpg` and 2; nil for a name not ending in `.json`.
    private static func stem(ofSidecar json: String) -> Stem? {
        guard isSidecar(json) else { return nil }
        guard let name = String(json.utf8.dropLast(5)) else { return nil }
        if let (before, number) = trailingNumber(name) { return Stem(name: before, number: number) }
        return Stem(name: name, number: nil)
    }

    /// `IMG_1(2).jpg` → `IMG_1.jpg` and 2: the number in brackets right before the extension.
    static func splitNumber(media name: String) -> (name: String, number: String?) {
        let dot = name.lastIndex(of: ".").flatMap { $0 > name.startIndex ? $0 : nil } ?? name.endIndex
        guard let (before, number) = trailingNumber(String(name[..<dot])) else { return (name, nil) }
        return (before + name[dot...], number)
    }

    /// `IMG_1(2)` → `IMG_1` and "2".
    private static func trailingNumber(_ text: String) -> (String, String)? {
        guard text.utf8.last == UInt8(ascii: ")"), let open = text.lastIndex(of: "(") else { return nil }
        let digits = text[text.index(after: open)..<text.index(before: text.endIndex)]
        guard !digits.isEmpty, digits.utf8.count <= 6, digits.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        return (String(text[..<open]), String(digits))
    }

    /// `IMG_1-edited.jpg` → `IMG_1.jpg`; nil when the name carries no edited suffix.
    static func original(ofEdited name: String) -> String? {
        let dot = name.lastIndex(of: ".").flatMap { $0 > name.startIndex ? $0 : nil } ?? name.endIndex
        let stem = name[..<dot]
        let lower = stem.lowercased()
        for suffix in editedSuffixes where lower.hasSuffix(suffix) && lower.count > suffix.count {
            return String(stem.dropLast(suffix.count)) + name[dot...]
        }
        return nil
    }
}
