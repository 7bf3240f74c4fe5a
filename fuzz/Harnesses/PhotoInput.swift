@testable import Adapters

/// A photo input opened the way `PhotoGeotagReader.read(path:)` opens one (bounded file, the
/// same head size), so each container harness starts at its reader, past format sniffing.
enum PhotoInput {
    static func file(_ bytes: [UInt8]) throws(PhotoReadError) -> FileBytes {
        try FileBytes(file: BoundedFile(path: ScratchFile.holding(bytes)), headSize: PhotoGeotagReader.headSize, nearStart: PhotoGeotagReader.nearStartSize)
    }

    /// Decodes what a container walker found, as the reader does after it.
    static func decode(_ find: (FileBytes) throws(PhotoReadError) -> MetadataBlocks, _ bytes: [UInt8]) {
        _ = try? find(file(bytes)).metadata()
    }
}
