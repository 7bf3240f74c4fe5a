@testable import Adapters
import Foundation
import IngestCore

extension TrackedFiles.Parse {
    /// The parse run to its end (a streamed one on this thread), its items all made, in order;
    /// nil when it failed.
    var whole: (items: [Item], warnings: [String], refreshAfter: Date?, retained: [ItemKey])? {
        switch self {
        case .parsed(let items, let warnings, let refreshAfter, let retained): return (items.all, warnings, refreshAfter, retained)
        case .failed: return nil
        case .streamed(_, let produce):
            var given: [Item] = []
            guard let end = produce({ given += $0.all }).whole else { return nil }
            return (given + end.items, end.warnings, end.refreshAfter, end.retained)
        }
    }

    /// Why it failed, if it did.
    var failure: String? {
        switch self {
        case .failed(let reason): reason
        case .streamed(_, let produce): produce { _ in }.failure
        case .parsed: nil
        }
    }
}
