import Foundation
import Testing
@testable import Adapters

/// Inputs `make fuzz` found crashing a parser, kept in fixtures/fuzz/<target>/ and fed to the
/// reader that crashed on them: each must end in an error or an empty result.
@Suite struct FuzzFindingTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    static func finding(_ target: String, _ name: String) -> String {
        root.appendingPathComponent("fixtures/fuzz/\(target)/\(name)").path
    }

    /// An Exif IFD pointer typed DOUBLE with a value far past Int's range trapped in `Int(_:)`.
    @Test func exifPointerBeyondIntIsOutside() {
        #expect {
            _ = try PhotoGeotagReader.read(path: Self.finding("tiff", "double-exif-pointer.tif"))
        } throws: { error in
            (error as? PhotoReadError)?.reason.contains("Exif IFD offset") == true
        }
    }
}
