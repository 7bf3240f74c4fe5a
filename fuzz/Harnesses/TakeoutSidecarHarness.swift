@testable import Adapters

/// Google Photos Takeout sidecars: the name matcher and the JSON reader. An input is
/// `media\nsidecar\nsidecar…\0json`: the names go through ``TakeoutSidecarMatcher`` (the media
/// name with each of them, as one folder), the rest through ``TakeoutSidecarReader``, and its
/// metadata on into `taken_at` with the offset inference. Without a NUL it is all JSON.
enum TakeoutSidecarHarness {
    static func run(_ bytes: [UInt8]) {
        let split = bytes.firstIndex(of: 0) ?? -1
        if split >= 0 {
            let names = String(decoding: bytes[..<split], as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            let matcher = TakeoutSidecarMatcher(sidecarNames: names.dropFirst())
            for name in names { _ = matcher.sidecar(for: name) }
            _ = TakeoutSidecarMatcher.original(ofEdited: names[0])
        }
        guard let sidecar = try? TakeoutSidecarReader.metadata(from: Array(bytes[(split + 1)...])) else { return }
        let photo = PhotoMetadata(dateTimeOriginal: LocalDateTime(year: 2019, month: 7, day: 1, hour: 12, minute: 0, second: 0))
        let merged = TakeoutSidecarReader.filling(photo, from: sidecar)
        _ = PhotoItem.takenAt(merged)
        _ = PhotoItem.make(merged, fileName: "IMG_1.jpg", size: 1)
    }
}
