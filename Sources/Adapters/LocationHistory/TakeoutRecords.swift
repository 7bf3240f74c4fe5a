/// Google Takeout's `Records.json` (`Location History.json` before 2022): `{"locations": [{
/// "latitudeE7": 473769000, "longitudeE7": 85417000, "accuracy": 13, "timestamp":
/// "2022-01-12T17:18:24.190Z", "deviceTag": 1234567890}, …]}`, older files with `"timestampMs":
/// "1420070400000"`. Each point keeps its `deviceTag`: a phone and a tablet are two streams.
/// Files run to gigabytes, so each element is read with the scanner, building no tree.
struct TakeoutRecords: JSONElementParser {
    var elements: JSONElementStream

    init(_ reader: BlockReader) { elements = JSONElementStream(reader, keys: ["locations"]) }

    func take(_ element: [UInt8], key: String, into batch: inout HistoryBatch) -> Bool {
        guard let (fix, device) = element.withUnsafeBufferPointer({ TakeoutRecords.fix($0) }) else { return false }
        batch.add(fix, device: device)
        return true
    }

    static func fix(_ bytes: UnsafeBufferPointer<UInt8>) -> (Fix, device: Int64?)? {
        var s = JSONScanner(bytes)
        var lat: Double?, lon: Double?, time: Double?, accuracy: Double?, altitude: Double?, velocity: Double?, tag: Double?
        do throws(JSONScanner.Failure) {
            try s.enterObject()
            while let key = try s.nextKey() {
                if s.key(key, is: "latitudeE7") { lat = try s.number() }
                else if s.key(key, is: "longitudeE7") { lon = try s.number() }
                else if s.key(key, is: "timestamp") {
                    guard try s.peek() == .string else { try s.skipValue(); continue }
                    let (range, _) = try s.stringRange()
                    time = HistoryTime.parse(UnsafeBufferPointer(rebasing: bytes[range]))
                }
                else if s.key(key, is: "timestampMs") { time = try s.number().map { $0 / 1000 } }
                else if s.key(key, is: "accuracy") { accuracy = try s.number() }
                else if s.key(key, is: "altitude") { altitude = try s.number() }
                else if s.key(key, is: "velocity") { velocity = try s.number() }
                else if s.key(key, is: "deviceTag") { tag = try s.number() }
                else { try s.skipValue() }
            }
        } catch { return nil }
        guard let lat, let lon, let time else { return nil }
        return (Fix(time: time, latitude: lat / 1e7, longitude: lon / 1e7, altitude: altitude.map(Float.init),
                    error: accuracy.map(Float.init), speed: velocity.map(Float.init)), tag.map(device))
    }

    /// A `deviceTag` as read: 32-bit in practice; one past 64 bits is still told apart by its bits.
    static func device(_ tag: Double) -> Int64 { abs(tag) < 9.2e18 ? Int64(tag) : Int64(bitPattern: tag.bitPattern) }
}
