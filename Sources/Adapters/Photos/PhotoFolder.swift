/// One folder's listing split into photos, their sidecars (`.xmp`, Takeout `.json`) and zips.
struct PhotoFolder {
    var path: String
    var photos: [FolderWalker.Entry] = []
    var sidecars: [String: String] = [:]        // file name → "size:mtime"
    /// Archives read in place as Takeout zips (``TakeoutZip``).
    var zips: [FolderWalker.Entry] = []
    /// Built only when the folder holds `.json` files.
    var takeout: TakeoutSidecarMatcher?

    static func isSidecar(_ name: String) -> Bool {
        name.hasSuffix(".xmp") || name.hasSuffix(".XMP") || TakeoutSidecarMatcher.isSidecar(name)
    }

    init(_ listing: FolderWalker.Listing) {
        path = listing.path
        var jsons: [String] = []
        for entry in listing.files {
            if TakeoutZip.isZip(entry.name) { zips.append(entry); continue }
            guard PhotoFolder.isSidecar(entry.name) else { photos.append(entry); continue }
            sidecars[entry.name] = "\(entry.stamp.size):\(entry.stamp.mtime)"
            if TakeoutSidecarMatcher.isSidecar(entry.name) { jsons.append(entry.name) }
        }
        if !jsons.isEmpty { takeout = TakeoutSidecarMatcher(sidecarNames: jsons) }
    }

    /// A photo's `.xmp` sidecar (`IMG_1.jpg.xmp` as darktable and digiKam write it, `IMG_1.xmp` as
    /// Lightroom does) and its Takeout `.json`, from the listing: no extra syscall.
    func sidecars(of name: String) -> Sidecars? {
        guard !sidecars.isEmpty else { return nil }
        var candidates = [name + ".xmp", name + ".XMP"]
        if let dot = name.lastIndex(of: ".") { candidates += [String(name[..<dot]) + ".xmp", String(name[..<dot]) + ".XMP"] }
        let xmp = candidates.first { sidecars[$0] != nil }
        let json = takeout?.sidecar(for: name)
        guard xmp != nil || json != nil else { return nil }
        return Sidecars(xmp: xmp, takeout: json, stamp: [xmp, json].compactMap { $0.flatMap { sidecars[$0] } }.joined(separator: "+"))
    }
}

/// The sidecars of one photo, and their stamps as one string for the anchor.
struct Sidecars: Sendable {
    var xmp: String?
    var takeout: String?
    var stamp: String
}
