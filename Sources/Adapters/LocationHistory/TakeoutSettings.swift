import IngestCore

/// Takeout's `Settings.json` beside `Records.json`: `{"createdTime", "historyEnabled",
/// "deviceSettings": [{"deviceTag": 1234567890, "devicePrettyName": "Pixel 7", "platformType":
/// "ANDROID", "deviceSpec": {…}, …}], …}`. Only each device's tag and pretty name are read, to
/// name the devices of `Records.json` to the user.
struct TakeoutSettings: JSONElementParser {
    var elements: JSONElementStream

    init(_ reader: BlockReader) { elements = JSONElementStream(reader, keys: ["deviceSettings"]) }

    func take(_ element: [UInt8], key: String, into batch: inout HistoryBatch) -> Bool {
        guard let device = JSONValue.parse(element), let tag = device["deviceTag"]?.doubleValue else { return false }
        if let name = device["devicePrettyName"]?.stringValue, !name.isEmpty { batch.deviceNames[TakeoutRecords.device(tag)] = name }
        return true
    }
}
