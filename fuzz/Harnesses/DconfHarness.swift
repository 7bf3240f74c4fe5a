@testable import Adapters

/// The user's dconf database (GVDB), as the focus adapter reads GNOME's show-banners from it.
enum DconfHarness {
    static func run(_ bytes: [UInt8]) {
        _ = DconfDatabase.boolean("/org/gnome/desktop/notifications/show-banners", in: bytes)
    }
}
