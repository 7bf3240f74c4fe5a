import IngestCore

/// Turns a photo's metadata into a `photos` item (docs/node-api.md), or nil without GPS or time.
enum PhotoItem {
    static func make(_ m: PhotoMetadata, fileName: String, size: Int64) -> Item? {
        guard let lat = m.latitude, let lon = m.longitude else { return nil }
        var fields: [String: JSONValue] = ["lat": .double(lat), "lon": .double(lon)]
        if let dto = m.dateTimeOriginal, let offset = m.offset {
            fields["taken_at"] = .string(stamp(dto, subSecond: m.subSecond) + offset)
        } else if let gps = m.gpsTimestampUTC {
            fields["taken_at"] = .string(stamp(gps, subSecond: nil) + "Z")
        } else if let dto = m.dateTimeOriginal {
            // No offset and no GPS time: the zone is truly unknown, so say so (node-api.md).
            fields["taken_at"] = .string(stamp(dto, subSecond: m.subSecond))
            fields["time_floating"] = .bool(true)
        } else {
            return nil
        }
        // Only fields with a value: a null would be left out of the body anyway, at the cost of a copy of the fields.
        if let altitude = m.altitudeM { fields["altitude_m"] = .double(altitude) }
        if let accuracy = m.horizontalErrorM { fields["accuracy_m"] = .double(accuracy) }
        if m.make != nil || m.model != nil {
            fields["camera"] = .object(["make": JSONValue(m.make), "model": JSONValue(m.model)].filter { $0.value != .null })
        }
        // The file's name and size go out but are not part of the version: a renamed copy is a duplicate, not an update.
        fields["file"] = .object(["name": .string(fileName), "size": .int(size)])
        return Item(endpoint: .photos, key: key(m), fields: fields, unversioned: ["file"])
    }

    /// From the photo's own identity, never its path: ImageUniqueID where the camera wrote one,
    /// else capture time + sub-second + offset + camera + serial + position.
    static func key(_ m: PhotoMetadata) -> String {
        let time = m.dateTimeOriginal?.description ?? m.gpsTimestampUTC.map { "gps " + $0.description } ?? ""
        let identity: String
        if let uid = m.imageUniqueID, uid.utf8.contains(where: { $0 != UInt8(ascii: "0") && $0 != UInt8(ascii: " ") }) {
            identity = "uid|\(uid)|\(time)"
        } else {
            identity = [time, m.subSecond ?? "", m.offset ?? "", m.make ?? "", m.model ?? "", m.cameraSerial ?? "",
                        m.latitude.map { rounded6($0) } ?? "", m.longitude.map { rounded6($0) } ?? ""].joined(separator: "|")
        }
        return "photo:" + Digest.sha256Hex(identity, length: 32)
    }

    static func rounded6(_ v: Double) -> String { String(Double(Int64((v * 1e6).rounded())) / 1e6) }

    /// `YYYY-MM-DDTHH:MM:SS` with the sub-second digits when the camera gave them.
    static func stamp(_ t: LocalDateTime, subSecond: String?) -> String {
        var base = LocalDateTime(year: t.year, month: t.month, day: t.day, hour: t.hour, minute: t.minute, second: t.second).description
        if let sub = subSecond, !sub.isEmpty, sub.utf8.allSatisfy({ (0x30...0x39).contains($0) }) { base += "." + sub }
        return base
    }
}

