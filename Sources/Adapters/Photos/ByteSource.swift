/// Random access to a bounded run of bytes, addressed from its own start.
///
/// TIFF offsets count from the TIFF header and box offsets from the start of the file, so
/// each parser gets a source whose offset 0 is where its structure begins. Sources check
/// every access against their own size and carry a name for error messages, so a bad
/// offset is reported as "outside the Exif data (size 1234)" rather than trapping.
protocol ByteSource {
    /// Human-readable name used in errors, e.g. "the file" or "the Exif data".
    var name: String { get }
    var count: Int { get }
    /// Exactly `count` bytes at `offset`; throws when the range is not inside the source.
    func bytes(at offset: Int, count: Int) throws(PhotoReadError) -> ArraySlice<UInt8>
}

extension ByteSource {
    /// Throws a uniform error unless `offset..<offset+length` lies inside this source.
    func checkRange(_ offset: Int, _ length: Int) throws(PhotoReadError) {
        guard offset >= 0, length >= 0, offset <= count, length <= count - offset else {
            throw PhotoReadError("read of \(length) bytes at offset \(offset.hex) is outside \(name) (size \(count))")
        }
    }
}

/// The whole file, with its first bytes held in memory.
///
/// Metadata almost always sits near the start (JPEG APP1, HEIF meta, PNG eXIf, TIFF IFD0),
/// so serving reads inside the head from memory makes a typical photo cost a single `pread`.
/// Metadata a little deeper (a GPS IFD after a camera's maker note) is read with the rest of
/// the first `nearStart` bytes in one more `pread`, kept for the reads after it.
struct FileBytes: ByteSource {
    /// Nil for a file known only by its first bytes (a zip entry's, ``TakeoutZip``).
    let file: BoundedFile?
    /// The first `min(headSize, file.size)` bytes.
    let head: [UInt8]
    private let nearStart: Range<Int>
    let name = "the file"
    let count: Int

    init(file: BoundedFile, headSize: Int, nearStart: Int) throws(PhotoReadError) {
        self.file = file
        self.count = file.size
        self.head = try file.read(at: 0, count: min(headSize, file.size))
        self.nearStart = head.count ..< max(head.count, min(nearStart, file.size))
    }

    /// A file of `size` bytes of which only `head` can be read.
    init(head: [UInt8], size: Int) {
        file = nil
        self.head = head
        count = max(size, head.count)
        nearStart = head.count..<head.count
    }

    func bytes(at offset: Int, count: Int) throws(PhotoReadError) -> ArraySlice<UInt8> {
        try checkRange(offset, count)
        if offset + count <= head.count {
            return head[offset..<(offset + count)]
        }
        guard let file else {
            throw PhotoReadError("metadata at offset \(offset.hex) lies beyond the first \(head.count >> 10) KiB read from the archive")
        }
        return try file.read(at: offset, count: count, keeping: nearStart)
    }
}

/// Bytes already in memory: payloads that had to be copied, such as multi-extent HEIF items.
struct MemoryBytes: ByteSource {
    let storage: [UInt8]
    let name: String
    var count: Int { storage.count }

    func bytes(at offset: Int, count: Int) throws(PhotoReadError) -> ArraySlice<UInt8> {
        try checkRange(offset, count)
        return storage[offset..<(offset + count)]
    }
}

/// A window onto part of another source, re-based so that its offset 0 is `start`.
///
/// Lets the TIFF walker address an Exif block inside a JPEG segment or HEIF item directly
/// in the file, reading only the entries it needs instead of copying the block.
struct ByteRange: ByteSource {
    private let base: any ByteSource
    private let start: Int
    let count: Int
    /// What the window is: a box's type is made text only for a message.
    private let label: Label
    private enum Label { case named(String), box(FourCC) }

    var name: String {
        switch label {
        case .named(let name): name
        case .box(let type): "the '\(type)' box"
        }
    }

    /// Throws when the window does not fit inside `base`, naming both.
    init(_ base: any ByteSource, start: Int, count: Int, name: String) throws(PhotoReadError) {
        try self.init(base, start: start, count: count, label: .named(name))
    }

    /// A box's content, named by the box's type.
    init(_ base: any ByteSource, start: Int, count: Int, box: FourCC) throws(PhotoReadError) {
        try self.init(base, start: start, count: count, label: .box(box))
    }

    private init(_ base: any ByteSource, start: Int, count: Int, label: Label) throws(PhotoReadError) {
        self.base = base
        self.start = start
        self.count = count
        self.label = label
        guard start >= 0, count >= 0, start <= base.count, count <= base.count - start else {
            throw PhotoReadError("\(name) at offset \(start.hex) (\(count) bytes) runs past the end of \(base.name) (size \(base.count))")
        }
    }

    func bytes(at offset: Int, count: Int) throws(PhotoReadError) -> ArraySlice<UInt8> {
        try checkRange(offset, count)
        return try base.bytes(at: start + offset, count: count)
    }
}
