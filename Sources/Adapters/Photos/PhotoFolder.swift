/// One folder's listing split into photos and `.xmp` sidecars.
struct PhotoFolder {
    var path: String
    var photos: [FolderWalker.Entry] = []
    var sidecars: [String: String] = [:]        // file name → "size:mtime"

    static func isSidecar(_ name: String) -> Bool { name.hasSuffix(".xmp") || name.hasSuffix(".XMP") }

    init(_ listing: FolderWalker.Listing) {
        path = listing.path
        for entry in listing.files {
            if PhotoFolder.isSidecar(entry.name) { sidecars[entry.name] = "\(entry.stamp.size):\(entry.stamp.mtime)" } else { photos.append(entry) }
        }
    }
}
