import FoundationEssentials
import IngestCore

/// What the bus thread hands to `follow` to commit.
struct FollowCommit: Sendable {
    var items: [Item]
    var anchor: AnchorUpdate
}

/// What a live adapter's books have made and not yet handed over: items, and anchor entries to
/// set (JSON) or drop. `take` empties it.
struct PendingCommit: Sendable {
    private(set) var items: [Item] = []
    private var anchor = AnchorUpdate()

    mutating func send(_ new: [Item]) { items += new }

    /// Queues `item` in place of one of the same key not yet committed: only its latest state goes.
    mutating func replace(_ item: Item) {
        items.removeAll { $0.key == item.key }
        items.append(item)
    }

    mutating func keep(_ key: String, _ value: some Encodable) {
        guard let data = try? JSONEncoder().encode(value) else { return }
        anchor.removals.remove(key)
        anchor.updates[key] = data
    }

    mutating func drop(_ key: String) {
        anchor.updates.removeValue(forKey: key)
        anchor.removals.insert(key)
    }

    /// What to commit now, emptied; nil when there is nothing.
    mutating func take() -> FollowCommit? {
        guard !items.isEmpty || !anchor.isEmpty else { return nil }
        defer { self = PendingCommit() }
        return FollowCommit(items: items, anchor: anchor)
    }
}

/// How the live bus adapters (mpris, focus) run inside `watch`: `body` follows the bus on a
/// worker thread of its own (``WorkerThreads``) (sd-bus is single-threaded and its calls block) until its control is
/// stopped, handing commits out as it goes; they are committed here in order. Cancelling the
/// task stops the thread, and its last hand-over is still committed.
func followOnBusThread(label: String, into sink: some ItemSink,
                       _ body: @escaping @Sendable (LoopControl, @escaping @Sendable (FollowCommit) -> Void) -> Void) async throws {
    let control = LoopControl()
    let (commits, output) = AsyncStream.makeStream(of: FollowCommit.self)
    WorkerThreads.start(label) {
        body(control) { output.yield($0) }
        output.finish()
    }
    // Not a child task: once `follow` is cancelled it must still commit the last hand-over.
    let committer = Task {
        for await commit in commits { try await sink.commit(commit.items, anchor: commit.anchor) }
    }
    do {
        try await withTaskCancellationHandler { try await committer.value } onCancel: { control.stop() }
    } catch {
        control.stop()
        throw error
    }
}
