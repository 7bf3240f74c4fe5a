/// Which tagged device's points count, so that two devices (a phone that travels, a tablet left
/// at home) never make one stay or trip: per local day the device with the most points leads,
/// and another is used only in a local hour the leader has no point in (of those, the one with
/// the most points in that hour). `DeviceTag=` narrows the devices to those it names first.
struct DevicePicker: Sendable {
    /// Devices `DeviceTag=` names; empty: every device.
    var picked: Set<Int64> = []
    /// The zone whose days and hours are meant (the system's).
    var zone: ZoneRules = .system

    /// Points per device in each local hour (hours since the epoch, local time).
    typealias HourCounts = [Int64: [Int64: Int]]

    func admits(_ device: Int64) -> Bool { picked.isEmpty || picked.contains(device) }

    func localHour(_ time: Double) -> Int64 {
        Int64(((time + Double(zone.offset(at: time))) / 3600).rounded(.down))
    }

    func count(_ devices: [Int64: [Fix]], into hours: inout HourCounts) {
        for (device, fixes) in devices where admits(device) {
            for fix in fixes { hours[localHour(fix.time), default: [:]][device, default: 0] += 1 }
        }
    }

    /// The points of `devices` that count, given the hour counts of every day they can share a
    /// local day with.
    func choose(_ devices: [Int64: [Fix]], hours: HourCounts) -> [Fix] {
        let present = devices.keys.filter(admits)
        if present.count <= 1, Set(hours.values.flatMap(\.keys)).count <= 1 { return present.flatMap { devices[$0] ?? [] } }
        var days: [Int64: [Int64: Int]] = [:]
        for (hour, counts) in hours {
            for (device, n) in counts { days[DevicePicker.day(ofHour: hour), default: [:]][device, default: 0] += n }
        }
        let leaders = days.compactMapValues(DevicePicker.most)
        var out: [Fix] = []
        for device in present {
            for fix in devices[device] ?? [] {
                let hour = localHour(fix.time)
                guard let leader = leaders[DevicePicker.day(ofHour: hour)] else { continue }
                if device == leader || (hours[hour]?[leader] == nil && device == hours[hour].flatMap(DevicePicker.most)) { out.append(fix) }
            }
        }
        return out
    }

    static func day(ofHour hour: Int64) -> Int64 { hour >= 0 ? hour / 24 : (hour - 23) / 24 }

    /// The device with the most points; the smaller tag on a tie, so the choice is the same every run.
    static func most(_ counts: [Int64: Int]) -> Int64? {
        counts.max { $0.value != $1.value ? $0.value < $1.value : $0.key > $1.key }?.key
    }
}
