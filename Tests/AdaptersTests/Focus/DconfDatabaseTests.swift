import Foundation
import Testing
@testable import Adapters

/// fixtures/focus/dconf-user-show-banners-false: the user database dconf-service wrote after
/// `gsettings set org.gnome.desktop.notifications show-banners false`.
struct DconfDatabaseTests {
    static let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().path + "/fixtures/focus/dconf-user-show-banners-false"
    static let key = "/org/gnome/desktop/notifications/show-banners"

    @Test func readsTheBooleanDconfServiceWrote() throws {
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Self.file)))
        #expect(DconfDatabase.boolean(Self.key, in: bytes) == false)
        // The same file with the value byte set (at the value pointer of the `show-banners` item).
        var flipped = bytes
        let at = try #require(flipped.indices.first { i in i + 3 <= flipped.count && flipped[i..<(i + 3)].elementsEqual([0, 0, UInt8(ascii: "b")]) })
        flipped[at] = 1
        #expect(DconfDatabase.boolean(Self.key, in: flipped) == true)
    }

    @Test func otherKeysCutOffFilesAndGarbageAreNil() throws {
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Self.file)))
        #expect(DconfDatabase.boolean("/org/gnome/desktop/notifications/show-in-lock-screen", in: bytes) == nil)
        #expect(DconfDatabase.boolean("/show-banners", in: bytes) == nil, "the whole key, not its last segment")
        for cut in stride(from: 0, to: bytes.count, by: 7) { _ = DconfDatabase.boolean(Self.key, in: Array(bytes.prefix(cut))) }
        #expect(DconfDatabase.boolean(Self.key, in: Array(repeating: 0xFF, count: 300)) == nil)
        #expect(DconfDatabase.boolean(Self.key, at: "/nonexistent/dconf/user") == nil)
    }
}
