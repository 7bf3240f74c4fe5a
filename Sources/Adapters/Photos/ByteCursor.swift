/// Sequential big-endian reads over an in-memory box payload (iinf, infe, iloc).
///
/// Those boxes are dense runs of variable-width fields; a cursor that throws a named
/// error on overrun turns a truncated or lying box into a clear reason instead of a trap.
struct ByteCursor {
    private let bytes: ArraySlice<UInt8>
    private let name: String
    private(set) var position = 0

    init(_ bytes: ArraySlice<UInt8>, name: String) {
        self.bytes = bytes
        self.name = name
    }

    var remaining: Int { bytes.count - position }

    /// An unsigned field of 0...8 bytes; width 0 reads nothing and yields 0, as iloc intends.
    mutating func uint(width: Int) throws(PhotoReadError) -> UInt64 {
        try need(width)
        defer { position += width }
        return ByteOrder.big.uint(bytes, at: position, width: width)
    }

    mutating func u8() throws(PhotoReadError) -> Int { Int(try uint(width: 1)) }
    mutating func u16() throws(PhotoReadError) -> Int { Int(try uint(width: 2)) }
    mutating func u32() throws(PhotoReadError) -> Int { Int(try uint(width: 4)) }

    mutating func skip(_ count: Int) throws(PhotoReadError) {
        try need(count)
        position += count
    }

    mutating func fourCC() throws(PhotoReadError) -> FourCC {
        try need(4)
        defer { position += 4 }
        return FourCC(bytes[(bytes.startIndex + position)...])
    }

    /// `count` bytes as UTF-8 text (a `keys` entry's name, which has no terminator).
    mutating func text(count: Int) throws(PhotoReadError) -> String {
        try need(count)
        defer { position += count }
        let start = bytes.startIndex + position
        return String(decoding: bytes[start..<(start + count)], as: UTF8.self)
    }

    /// A NUL-terminated string; a missing final NUL ends the string at the end of the payload.
    mutating func cString() -> String {
        let start = bytes.startIndex + position
        let end = bytes[start...].firstIndex(of: 0) ?? bytes.endIndex
        position = min(end - bytes.startIndex + 1, bytes.count)
        return String(decoding: bytes[start..<end], as: UTF8.self)
    }

    private func need(_ count: Int) throws(PhotoReadError) {
        guard count <= remaining else {
            throw PhotoReadError("\(name) is truncated: needs \(count) more bytes at offset \(position) but has \(remaining)")
        }
    }
}
