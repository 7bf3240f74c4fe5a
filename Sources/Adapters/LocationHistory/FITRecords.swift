/// The track of a Garmin FIT file (a device's `*.fit` over USB, Strava's `activities/*.fit.gz`,
/// Garmin Connect's `DI_CONNECT` uploads): every `record` message (global number 20) with a
/// `timestamp` (field 253) and `position_lat`/`position_long` (fields 0 and 1, semicircles),
/// plus `enhanced_altitude`/`altitude` and `enhanced_speed`/`speed` where written. Everything
/// else (laps, sessions, heart rate, developer fields) is passed over by its declared size.
///
/// The layout is the FIT protocol's (Garmin's FIT SDK, "FIT File Types" and "Protocol"
/// pages; fitparse's `base.py` and fitdecode's `reader.py` read it so): a 12- or 14-byte header
/// (`.FIT` at byte 8, the data size at byte 4), then records, each a one-byte header and either
/// a definition (architecture, global number, field list, developer fields when header bit 0x20
/// is set) or the data of a local type defined before, with a normal header or a compressed-
/// timestamp one (bit 0x80: local type in bits 5–6, seconds in bits 0–4), then a 2-byte CRC.
/// Chained files (one header after another) are read one after another.
///
/// The CRCs are not checked: a file a device was still writing, or cut off in a copy, gives
/// the records before the cut, as the other readers keep what comes before a cut. No size a
/// header claims is trusted for an allocation: bytes are only taken as the stream gives them.
struct FITRecords: HistoryParser {
    private var reader: BlockReader
    private var definitions = [Definition?](repeating: nil, count: 16)
    /// Bytes of the current file's data not yet read (its header's claim; the stream may end first).
    private var dataLeft = 0
    private var lastTimestamp: UInt32 = 0
    /// Offset of `reader.position` in the stream, for errors.
    private var offset = 0

    /// FIT's epoch, 1989-12-31T00:00:00Z, in Unix seconds.
    static let epoch = 631_065_600.0
    static let recordMessage: UInt16 = 20

    init(_ reader: BlockReader) { self.reader = reader }

    /// A FIT file's header: its size byte (12 or 14), and `.FIT` at bytes 8–11.
    static func isHeader(_ head: some Collection<UInt8>) -> Bool {
        let b = Array(head.prefix(12))
        return b.count == 12 && (b[0] == 12 || b[0] == 14) && b[8...11].elementsEqual(".FIT".utf8)
    }

    struct Field { var number: UInt8; var size: Int }

    struct Definition {
        var global: UInt16
        var bigEndian: Bool
        var fields: [Field]
        /// The data message's size: its fields' and developer fields' sizes.
        var size: Int
    }

    mutating func read(into batch: inout HistoryBatch) throws(FileReadError) -> Bool {
        while !batch.isFull {
            if dataLeft <= 0 {
                if offset > 0 { _ = try take(2) }     // the file's CRC, not checked (see above)
                guard try reader.ensure(1) else { return false }
                try header()
                continue
            }
            let recordHeader = try take(1)[0]
            if recordHeader & 0x80 != 0 {
                try data(local: Int((recordHeader >> 5) & 0x3), timeOffset: recordHeader & 0x1F, into: &batch)
            } else if recordHeader & 0x40 != 0 {
                try define(local: Int(recordHeader & 0x0F), developer: recordHeader & 0x20 != 0)
            } else {
                try data(local: Int(recordHeader & 0x0F), timeOffset: nil, into: &batch)
            }
        }
        return true
    }

    /// The file header at the read position: its data size is how far the records go.
    private mutating func header() throws(FileReadError) {
        guard try reader.ensure(12), FITRecords.isHeader(reader.bytes[reader.position...]) else {
            throw FileReadError(offset == 0 ? "not a FIT file (no .FIT header)" : "FIT: no file header after the CRC at byte \(offset)")
        }
        let size = Int(reader.bytes[reader.position])
        let head = try take(size)
        dataLeft = Int(UInt32(head[4]) | UInt32(head[5]) << 8 | UInt32(head[6]) << 16 | UInt32(head[7]) << 24)
        definitions = Array(repeating: nil, count: 16)
        guard dataLeft > 0 else { throw FileReadError("FIT: a header at byte \(offset - size) claims no data") }
    }

    private mutating func define(local: Int, developer: Bool) throws(FileReadError) {
        let fixed = try take(5)
        let bigEndian = fixed[1] == 1
        let global = bigEndian ? UInt16(fixed[2]) << 8 | UInt16(fixed[3]) : UInt16(fixed[3]) << 8 | UInt16(fixed[2])
        let list = try take(Int(fixed[4]) * 3)
        var fields: [Field] = []
        var size = 0
        for i in stride(from: 0, to: list.count, by: 3) {
            fields.append(Field(number: list[i], size: Int(list[i + 1])))
            size += Int(list[i + 1])
        }
        if developer {
            // Developer fields (number, size, developer index): only their sizes matter here.
            let count = Int(try take(1)[0])
            let devList = try take(count * 3)
            for i in stride(from: 1, to: devList.count, by: 3) { size += Int(devList[i]) }
        }
        definitions[local] = Definition(global: global, bigEndian: bigEndian, fields: fields, size: size)
    }

    private mutating func data(local: Int, timeOffset: UInt8?, into batch: inout HistoryBatch) throws(FileReadError) {
        guard let definition = definitions[local] else {
            throw FileReadError("FIT: a data message of local type \(local) before its definition at byte \(offset - 1)")
        }
        let body = try take(definition.size)
        let fields = FITValues(body: body, definition: definition)
        if let timeOffset {
            // Seconds since the last full timestamp, rolling over every 32 s.
            var time = (lastTimestamp & ~0x1F) + UInt32(timeOffset)
            if timeOffset < UInt8(lastTimestamp & 0x1F) { time &+= 0x20 }
            lastTimestamp = time
        } else if let time = fields.unsigned(253, size: 4), time != 0xFFFF_FFFF {
            lastTimestamp = UInt32(time)
        }
        guard definition.global == FITRecords.recordMessage else { return }
        // Indoors a record has no position, and one without a time of its own cannot be placed:
        // neither is a point. Below 0x10000000 a date_time counts from power-on, not the epoch.
        guard let lat = fields.signed(0), let lon = fields.signed(1), lastTimestamp >= 0x1000_0000,
              timeOffset != nil || fields.unsigned(253, size: 4) != nil else { return }
        let semicircle = 180.0 / 2_147_483_648.0
        let altitude = fields.unsigned(78, size: 4).map { Float($0) / 5 - 500 } ?? fields.unsigned(2, size: 2).map { Float($0) / 5 - 500 }
        let speed = fields.unsigned(73, size: 4).map { Float($0) / 1000 } ?? fields.unsigned(6, size: 2).map { Float($0) / 1000 }
        batch.points.append(Fix(time: FITRecords.epoch + Double(lastTimestamp), latitude: Double(lat) * semicircle,
                                longitude: Double(lon) * semicircle, altitude: altitude, speed: speed))
        batch.read += 1
    }

    /// `count` bytes of the current file's records, or a cut-off error naming where.
    private mutating func take(_ count: Int) throws(FileReadError) -> [UInt8] {
        guard try reader.ensure(count) else { throw FileReadError("FIT: cut off at byte \(offset + reader.bytes.count - reader.position)") }
        let out = Array(reader.bytes[reader.position..<(reader.position + count)])
        reader.position += count
        offset += count
        dataLeft -= count
        return out
    }
}

/// The field values of one data message, by field number, in its definition's byte order.
struct FITValues {
    let body: [UInt8]
    let definition: FITRecords.Definition

    /// Field `number` as an unsigned integer of `size` bytes; nil when absent, of another size,
    /// or all ones (FIT's invalid value).
    func unsigned(_ number: UInt8, size: Int) -> UInt64? {
        var at = 0
        for field in definition.fields {
            defer { at += field.size }
            guard field.number == number else { continue }
            guard field.size == size, at + size <= body.count else { return nil }
            var value: UInt64 = 0
            for i in 0..<size {
                let byte = UInt64(body[at + (definition.bigEndian ? i : size - 1 - i)])
                value = value << 8 | byte
            }
            return value == (size == 8 ? UInt64.max : (1 << UInt64(size * 8)) - 1) ? nil : value
        }
        return nil
    }

    /// Field `number` as a signed 32-bit integer (sint32: 0x7FFFFFFF is invalid).
    func signed(_ number: UInt8) -> Int32? {
        var at = 0
        for field in definition.fields {
            defer { at += field.size }
            guard field.number == number else { continue }
            guard field.size == 4, at + 4 <= body.count else { return nil }
            let b = definition.bigEndian ? Array(body[at..<(at + 4)]) : body[at..<(at + 4)].reversed()
            let value = Int32(bitPattern: UInt32(b[0]) << 24 | UInt32(b[1]) << 16 | UInt32(b[2]) << 8 | UInt32(b[3]))
            return value == Int32.max ? nil : value
        }
        return nil
    }
}
