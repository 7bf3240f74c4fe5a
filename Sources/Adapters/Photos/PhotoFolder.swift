/// One folder's listing split into photos, their sidecars (`.xmp`, Takeout `.json`) and zips.
struct PhotoFolder {
    var path: String
    var photos: [FolderWalker.Entry] = []
    var sidecars: [String: FileStamp] = [:]
    /// Archives read in place as Takeout zips (``TakeoutZip``).
    var zips: [FolderWalker.Entry] = []
    /// Built only when the folder holds `.json` files.
    var takeout: TakeoutSidecarMatcher?
    /// Whether any sidecar is an `.xmp`: a Takeout folder's photos then make no names to look up.
    private var hasXMP = false

    /// `.xmp`, `.XMP` or a Takeout `.json`, by the name's last bytes: every file of every re-scan passes here.
    static func isSidecar(_ name: String) -> Bool {
        let tail = name.utf8.suffix(4)
        return tail.elementsEqual(".xmp".utf8) || tail.elementsEqual(".XMP".utf8) || TakeoutSidecarMatcher.isSidecar(name)
    }

    init(_ listing: FolderWalker.Listing) {
        path = listing.path
        var jsons: [String] = []
        for entry in listing.files {
            if TakeoutZip.isZip(entry.name) { zips.append(entry); continue }
            guard PhotoFolder.isSidecar(entry.name) else { photos.append(entry); continue }
            sidecars[entry.name] = entry.stamp
            if TakeoutSidecarMatcher.isSidecar(entry.name) { jsons.append(entry.name) } else { hasXMP = true }
        }
        if !jsons.isEmpty { takeout = TakeoutSidecarMatcher(sidecarNames: jsons) }
    }

    /// A photo's `.xmp` sidecar (`IMG_1.jpg.xmp` as darktable and digiKam write it, `IMG_1.xmp` as
    /// Lightroom does) and its Takeout `.json`, from the listing: no extra syscall.
    func sidecars(of name: String) -> Sidecars? {
        guard !sidecars.isEmpty else { return nil }
        func file(_ name: String?) -> Sidecars.File? { name.flatMap { name in sidecars[name].map { Sidecars.File(name: name, stamp: $0) } } }
        let xmp = file(hasXMP ? xmpSidecar(of: name) : nil), json = file(takeout?.sidecar(for: name))
        guard xmp != nil || json != nil else { return nil }
        return Sidecars(xmp: xmp, takeout: json)
    }

    private func xmpSidecar(of name: String) -> String? {
        var candidates = [name + ".xmp", name + ".XMP"]
        if let dot = name.lastIndex(of: ".") { candidates += [String(name[..<dot]) + ".xmp", String(name[..<dot]) + ".XMP"] }
        return candidates.first { sidecars[$0] != nil }
    }
}

/// The sidecars of one photo, and their stamps as one string for the anchor.
struct Sidecars: Sendable {
    /// A sidecar's name in the folder, and its stat as the folder's walk saw it.
    struct File: Sendable {
        var name: String
        var stamp: FileStamp
    }

    let xmp: File?
    let takeout: File?
    /// `size:mtime` of each, `+` between.
    let stamp: String

    init(xmp: File?, takeout: File?) {
        self.xmp = xmp
        self.takeout = takeout
        stamp = [xmp, takeout].compactMap { $0.map { "\($0.stamp.size):\($0.stamp.mtime)" } }.joined(separator: "+")
    }
}
