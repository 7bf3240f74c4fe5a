#if canImport(Glibc)
import Glibc
#endif

/// What one `stat` says of a file: while it is equal, the file is taken as unchanged and not opened.
///
/// Every file anchor stores it as three tab-separated decimal fields, `size\tmtime\tinode`; this is
/// the one codec for them (photo folders, tracked files and health exports all wrote this layout).
struct FileStamp: Equatable, Sendable {
    var size: Int64
    /// Nanoseconds since the epoch.
    var mtime: Int64
    var inode: UInt64

    /// Appends `size\tmtime\tinode`.
    func write(into out: inout [UInt8]) {
        FileStamp.decimal(size.magnitude, negative: size < 0, into: &out); out.append(0x09)
        FileStamp.decimal(mtime.magnitude, negative: mtime < 0, into: &out); out.append(0x09)
        FileStamp.decimal(inode, negative: false, into: &out)
    }

    /// Reads the three fields `write` wrote; nil unless all three are decimal numbers in range.
    init?(size: ArraySlice<UInt8>, mtime: ArraySlice<UInt8>, inode: ArraySlice<UInt8>) {
        guard let size = FileStamp.signed(size), let mtime = FileStamp.signed(mtime), let inode = FileStamp.unsigned(inode[...])
        else { return nil }
        self.init(size: size, mtime: mtime, inode: inode)
    }

    init(size: Int64, mtime: Int64, inode: UInt64) {
        self.size = size; self.mtime = mtime; self.inode = inode
    }

    /// True when the file is, as far as `stat` tells, the one that was read: rsync's quick check.
    /// A file restored from a backup, synced by a tool that writes a copy and renames it, or moved
    /// to another disk keeps its size and modification time but gets a new inode.
    func matches(_ other: FileStamp) -> Bool { size == other.size && mtime == other.mtime }

    init(_ st: stat) {
        self.init(size: Int64(st.st_size), mtime: Int64(st.st_mtim.tv_sec) * 1_000_000_000 + Int64(st.st_mtim.tv_nsec), inode: UInt64(st.st_ino))
    }

    // MARK: - Decimal text, on bytes: an unchanged re-scan decodes every file's stamp

    /// The digits of `magnitude`, after a `-` when `negative`, as `String(value)` writes them.
    private static func decimal(_ magnitude: UInt64, negative: Bool, into out: inout [UInt8]) {
        if negative { out.append(0x2D) }
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)      // 24 bytes: room for UInt64.max's 20 digits
        var value = magnitude
        var count = 0
        withUnsafeMutableBytes(of: &digits) { buf in
            repeat {
                buf[23 - count] = UInt8(0x30 + value % 10)
                value /= 10
                count += 1
            } while value > 0
            out.append(contentsOf: buf[(24 - count)...])
        }
    }

    /// What `Int64(String)` accepts of what `decimal` writes: an optional sign, then digits.
    private static func signed(_ text: ArraySlice<UInt8>) -> Int64? {
        let negative = text.first == 0x2D
        guard let magnitude = unsigned(negative || text.first == 0x2B ? text.dropFirst() : text) else { return nil }
        if negative { return magnitude <= UInt64(Int64.max) + 1 ? Int64(truncatingIfNeeded: 0 &- magnitude) : nil }
        return magnitude <= UInt64(Int64.max) ? Int64(magnitude) : nil
    }

    private static func unsigned(_ text: ArraySlice<UInt8>) -> UInt64? {
        guard !text.isEmpty else { return nil }
        var value: UInt64 = 0
        for byte in text {
            guard byte >= 0x30, byte <= 0x39 else { return nil }
            let (times10, o1) = value.multipliedReportingOverflow(by: 10)
            let (sum, o2) = times10.addingReportingOverflow(UInt64(byte - 0x30))
            guard !o1, !o2 else { return nil }
            value = sum
        }
        return value
    }
}
