import IngestCore

/// Turns a photo's or a video's metadata into a `photos` item (docs/node-api.md), or nil without GPS or time.
enum PhotoItem {
    static func make(_ m: PhotoMetadata, fileName: String, size: Int64) -> Item? {
        guard let lat = m.latitude, let lon = m.longitude, let taken = takenAt(m) else { return nil }
        // In key order, only fields with a value.
        var fields = ItemFields(key: m.isVideo ? videoKey(m) : key(m))
        if let accuracy = m.horizontalErrorM { fields.add("accuracy_m", accuracy) }
        if let altitude = m.altitudeM { fields.add("altitude_m", altitude) }
        if m.make != nil || m.model != nil {
            fields.addObject("camera") { camera in
                if let make = m.make { camera.add("make", make) }
                if let model = m.model { camera.add("model", model) }
            }
        }
        // The file's name and size go out but are not part of the version: a renamed copy is a duplicate, not an update.
        fields.addObject("file", unversioned: true) { file in
            file.add("name", fileName)
            file.add("size", size)
        }
        fields.add("lat", lat)
        fields.add("lon", lon)
        if m.isVideo { fields.add("media", "video") }
        fields.addString("taken_at", writing: taken.write)
        if taken.floating { fields.add("time_floating", true) }
        return Item(endpoint: .photos, fields: fields)
    }

    /// `taken_at`: a wall time, its sub-second digits and what follows them (an offset, `Z`, or
    /// nothing when the zone is unknown), written straight into the item.
    struct TakenAt {
        let wall: LocalDateTime
        let subSecond: String?
        let suffix: String
        let floating: Bool

        /// `YYYY-MM-DDTHH:MM:SS` with the sub-second digits when the camera gave them, then the suffix.
        func write(into text: inout [UInt8]) {
            LocalDateTime(year: wall.year, month: wall.month, day: wall.day, hour: wall.hour, minute: wall.minute, second: wall.second)
                .write(into: &text)
            if let sub = subSecond, !sub.isEmpty, sub.utf8.allSatisfy({ (0x30...0x39).contains($0) }) {
                text.append(UInt8(ascii: ".")); text.append(contentsOf: sub.utf8)
            }
            text.append(contentsOf: suffix.utf8)
        }

        var text: String {
            var text: [UInt8] = []
            write(into: &text)
            return String(decoding: text, as: UTF8.self)
        }
    }

    /// `taken_at`: local time with its recorded offset, else with the offset its UTC time implies
    /// (``CaptureOffset``), else the UTC time itself, else a local time whose zone is truly
    /// unknown, which is said so (`time_floating`, node-api.md).
    static func takenAt(_ m: PhotoMetadata) -> TakenAt? {
        if let dto = m.dateTimeOriginal, let offset = m.offset { return TakenAt(wall: dto, subSecond: m.subSecond, suffix: offset, floating: false) }
        let utc = m.gpsTimestampUTC ?? m.takenUTC ?? m.createdUTC
        if let dto = m.dateTimeOriginal, let utc, let offset = CaptureOffset.inferred(local: dto, utc: utc) {
            return TakenAt(wall: dto, subSecond: m.subSecond, suffix: CivilCalendar.offsetText(offset), floating: false)
        }
        if let utc { return TakenAt(wall: utc, subSecond: nil, suffix: "Z", floating: false) }
        if let dto = m.dateTimeOriginal { return TakenAt(wall: dto, subSecond: m.subSecond, suffix: "", floating: true) }
        return nil
    }

    /// From the photo's own identity, never its path: ImageUniqueID where the camera wrote one,
    /// else capture time + sub-second + offset + camera + serial + position. The offset is the one
    /// recorded, never an inferred one, so a photo whose time gains an offset keeps its key.
    static func key(_ m: PhotoMetadata) -> String {
        // Built as bytes, `|` between the parts.
        var identity: [UInt8] = []
        identity.reserveCapacity(128)
        if let dto = m.dateTimeOriginal { dto.write(into: &identity) }
        else if let gps = m.gpsTimestampUTC { identity.append(contentsOf: "gps ".utf8); gps.write(into: &identity) }
        else if let utc = m.takenUTC { identity.append(contentsOf: "utc ".utf8); utc.write(into: &identity) }
        if let uid = m.imageUniqueID, uid.utf8.contains(where: { $0 != UInt8(ascii: "0") && $0 != UInt8(ascii: " ") }) {
            identity = Array("uid|\(uid)|".utf8) + identity
        } else {
            for part in [m.subSecond, m.offset, m.make, m.model, m.cameraSerial] { append(part, to: &identity) }
            appendPosition(m, to: &identity)
        }
        return Digest.sha256Hex(identity, length: 32, prefix: "photo:")
    }

    /// A video's: its Live Photo content identifier where it has one (unique per capture), else
    /// capture time + offset + camera + length + position. Never its path.
    static func videoKey(_ m: PhotoMetadata) -> String {
        var identity: [UInt8] = []
        if let id = m.contentIdentifier {
            identity = Array("cid|\(id)".utf8)
        } else {
            if let dto = m.dateTimeOriginal { dto.write(into: &identity) }
            identity.append(UInt8(ascii: "|"))
            if let utc = m.createdUTC { utc.write(into: &identity) }
            for part in [m.subSecond, m.offset, m.make, m.model, m.durationMs.map(String.init)] { append(part, to: &identity) }
            appendPosition(m, to: &identity)
        }
        return Digest.sha256Hex(identity, length: 32, prefix: "video:")
    }

    static func rounded6(_ v: Double) -> String { String(Double(Int64((v * 1e6).rounded())) / 1e6) }

    /// `|` and a part of an identity, if there is one.
    private static func append(_ part: String?, to identity: inout [UInt8]) {
        identity.append(UInt8(ascii: "|"))
        if let part { identity.append(contentsOf: part.utf8) }
    }

    /// `|latitude|longitude`, each rounded to 6 decimals.
    private static func appendPosition(_ m: PhotoMetadata, to identity: inout [UInt8]) {
        append(m.latitude.map(rounded6), to: &identity)
        append(m.longitude.map(rounded6), to: &identity)
    }
}
