// swift-corelibs-libdispatch does not mark its DispatchSource types Sendable (Apple's does).
@preconcurrency import Dispatch
import FoundationEssentials
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Tells `watch` when something under an adapter's folders changed (inotify), so it rescans that
/// adapter then instead of at the next interval. Owns the inotify descriptor; watches whole
/// trees, adding folders as they appear. Folders beyond `maxWatches` fall back to the interval.
public final class FolderMonitor: Sendable {
    private struct Watches {
        var owners: [Int32: (owner: Int, path: String)] = [:]
    }

    private let fd: Int32
    private let watches = Locked(Watches())
    private let source: any DispatchSourceRead
    private let maxWatches: Int
    /// Called on the monitor's queue with the owner given to `watch(tree:owner:)`.
    private let onChange: @Sendable (Int) -> Void

    static let mask = UInt32(IN_CLOSE_WRITE | IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_DELETE_SELF | IN_ATTRIB)

    /// nil when inotify is not available (then the interval alone drives rescans).
    public init?(maxWatches: Int = 8192, onChange: @escaping @Sendable (Int) -> Void) {
        let fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard fd >= 0 else { return nil }
        self.fd = fd
        self.maxWatches = maxWatches
        self.onChange = onChange
        source = DispatchSource.makeReadSource(fileDescriptor: fd, queue: DispatchQueue(label: "hearthloom.folder-monitor"))
        source.setEventHandler { [weak self] in self?.drain() }
        source.resume()
    }

    deinit {
        source.cancel()
        close(fd)
    }

    /// Stops telling of changes; the descriptor closes with the monitor.
    public func stop() { source.cancel() }

    /// Watches `root` and every folder under it (hidden ones skipped, as the adapters skip them).
    /// A file root is watched through its folder. Returns how many folders are watched.
    @discardableResult
    public func watch(tree root: String, owner: Int) -> Int {
        var folder = root.count > 1 && root.hasSuffix("/") ? String(root.dropLast()) : root
        if !FileSystem.isDirectory(folder) { folder = folder.deletingLastPathComponent }
        guard FileSystem.isDirectory(folder) else { return 0 }
        var added = 0
        var pending = [folder]
        while let next = pending.popLast() {
            guard add(next, owner: owner) else { break }
            added += 1
            pending += subfolders(of: next)
        }
        return added
    }

    private func add(_ path: String, owner: Int) -> Bool {
        guard watches.withLock({ $0.owners.count }) < maxWatches else { return false }
        let wd = inotify_add_watch(fd, path, FolderMonitor.mask | UInt32(IN_ONLYDIR))
        guard wd >= 0 else { return errno != ENOSPC }       // out of kernel watches: stop adding
        watches.withLock { $0.owners[wd] = (owner, path) }
        return true
    }

    private func subfolders(of path: String) -> [String] {
        guard let dir = opendir(path) else { return [] }
        defer { closedir(dir) }
        var found: [String] = []
        while let entry = readdir(dir) {
            let name = FileSystem.entryName(entry)
            guard !name.hasPrefix(".") else { continue }
            let full = path + "/" + name
            if entry.pointee.d_type == DT_DIR || (entry.pointee.d_type == DT_UNKNOWN || entry.pointee.d_type == DT_LNK) && FileSystem.isDirectory(full) {
                found.append(full)
            }
        }
        return found
    }

    /// Reads every pending event; a new folder is watched too, and each owner is told once per batch.
    private func drain() {
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        var changed = Set<Int>()
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            guard n > 0 else { break }
            var at = 0
            while at + MemoryLayout<inotify_event>.size <= n {
                let (wd, mask, length) = buffer.withUnsafeBytes { raw in
                    let e = raw.loadUnaligned(fromByteOffset: at, as: inotify_event.self)
                    return (e.wd, e.mask, Int(e.len))
                }
                let nameStart = at + MemoryLayout<inotify_event>.size
                let name = buffer[nameStart..<min(n, nameStart + length)].prefix { $0 != 0 }
                at = nameStart + length
                guard let watched = watches.withLock({ $0.owners[wd] }) else { continue }
                if mask & UInt32(IN_IGNORED) != 0 { watches.withLock { _ = $0.owners.removeValue(forKey: wd) }; continue }
                let entry = String(decoding: name, as: UTF8.self)
                if entry.hasPrefix(".") { continue }               // editors' swap files, hidden folders
                if mask & UInt32(IN_ISDIR) != 0, mask & UInt32(IN_CREATE | IN_MOVED_TO) != 0 {
                    watch(tree: watched.path + "/" + entry, owner: watched.owner)
                }
                changed.insert(watched.owner)
            }
        }
        for owner in changed { onChange(owner) }
    }
}
