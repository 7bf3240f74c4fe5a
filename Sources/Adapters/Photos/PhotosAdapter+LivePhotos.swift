import IngestCore

extension PhotosAdapter {
    /// A file read this scan, and the item it gave.
    struct PhotoRead {
        let name: String
        let item: Item?
    }

    /// A file's name beside an item to queue: a paired movie's item is taken out again by name.
    private struct NamedItem {
        let name: String
        let item: Item
    }

    /// Settles a changed folder's Live Photos: a movie paired with a still that gives an item holds
    /// no item of its own, and one whose still is gone (or gives none) holds its own again.
    ///
    /// - Parameter read: the files read this scan, in order, and the item each gave.
    /// - Returns: the items to queue, each file's own unless its movie is paired.
    func settleLivePhotos(_ after: inout FolderAnchor, read: [PhotoRead], reading: Reading,
                          ledger: inout FileLedger<some ItemSink>, sink: some ItemSink) async -> [Item] {
        var items = read.compactMap { photo in photo.item.map { NamedItem(name: photo.name, item: $0) } }
        guard after.records.values.contains(where: { $0.pairing?.isVideo == true }) else { return items.map(\.item) }
        let readNames = Set(read.map(\.name))
        let facts = after.records.compactMapValues(\.pairing)
        let stills = Set(after.records.compactMap { name, record in record.key != nil && record.pairing?.isVideo == false ? name : nil })
        let paired = LivePhoto.pairedVideos(facts, stills: stills)
        for (name, record) in after.records where record.pairing?.isVideo == true {
            if paired.contains(name) {
                after.records[name]?.key = nil
                items.removeAll { $0.name == name }
            } else if record.key == nil, !readNames.contains(name) {
                // A movie not read this scan whose still is gone: it is read again for its own item.
                let outcome = PhotosAdapter.readOne(folder: reading.path, nil, name: name, size: record.stamp.size, sidecar: reading.sidecarsByName[name])
                for warning in outcome.warnings { await sink.warn(warning) }
                if let item = outcome.item { after.records[name]?.key = item.key; items.append(NamedItem(name: name, item: item)) }
            }
            // A movie's own item that its still now stands for is gone from the node, unless some file still holds it.
            if let old = reading.before.records[name]?.key, old != after.records[name]?.key {
                ledger.lose([ItemKey(endpoint: .photos, key: old)])
            }
        }
        return items.map(\.item)
    }
}
