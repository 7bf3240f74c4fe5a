/// Apple Health `export.xml` `Record` elements as samples.
enum AppleHealthRecord {
    enum Outcome: Equatable {
        case sample(HealthSample)
        /// A type this adapter does not roll up (blood pressure, flights climbed, …): not an error.
        case ignored
        case bad(String)
    }

    static let quantityKinds: [String: HealthSample.Kind] = [
        "HKQuantityTypeIdentifierStepCount": .steps,
        "HKQuantityTypeIdentifierActiveEnergyBurned": .activeEnergy,
        "HKQuantityTypeIdentifierBasalEnergyBurned": .basalEnergy,
        "HKQuantityTypeIdentifierHeartRate": .heartRate,
        "HKQuantityTypeIdentifierRestingHeartRate": .restingHeartRate,
        "HKQuantityTypeIdentifierHeartRateVariabilitySDNN": .hrv,
    ]

    static let sleepStages: [String: HealthSample.SleepStage] = [
        "HKCategoryValueSleepAnalysisInBed": .inBed,
        "HKCategoryValueSleepAnalysisAsleep": .asleep,
        "HKCategoryValueSleepAnalysisAsleepUnspecified": .asleep,
        "HKCategoryValueSleepAnalysisAsleepCore": .core,
        "HKCategoryValueSleepAnalysisAsleepDeep": .deep,
        "HKCategoryValueSleepAnalysisAsleepREM": .rem,
        "HKCategoryValueSleepAnalysisAwake": .awake,
    ]

    /// Maps Record tags to samples from their raw attribute bytes. An export repeats a few
    /// types and sources millions of times, so the last type's kind and the sources' names are
    /// remembered rather than made into strings per record.
    struct Mapper {
        private var lastType: [UInt8] = []
        private var lastKind: HealthSample.Kind??           // nil: none yet; .some(nil): ignored
        private var sources: [([UInt8], String)] = []

        mutating func sample(_ tag: StartTagScanner.Tag) -> Outcome {
            guard let type = tag.raw("type") else { return .bad("Record without a type") }
            if lastKind == nil || !type.elementsEqual(lastType) {
                let name = String(decoding: type, as: UTF8.self)
                lastType = Array(type)
                lastKind = .some(quantityKinds[name] ?? (name == "HKCategoryTypeIdentifierSleepAnalysis" ? .sleep(.asleep) : nil))
            }
            guard var kind = lastKind! else { return .ignored }
            if case .sleep = kind {
                guard let stage = tag.value("value").flatMap({ sleepStages[$0] }) else { return .bad("unknown sleep value \(tag.value("value") ?? "(none)")") }
                kind = .sleep(stage)
            }
            guard let (start, offset) = tag.raw("startDate").flatMap(parseDate) else { return .bad("unreadable startDate \(tag.value("startDate") ?? "(none)")") }
            guard let (end, _) = tag.raw("endDate").flatMap(parseDate), end >= start else {
                return .bad("unreadable or early endDate \(tag.value("endDate") ?? "(none)")")
            }
            var value: Double
            if case .sleep = kind { value = end - start } else {
                guard let v = tag.raw("value").flatMap(JSONScanner.number), v.isFinite, v >= 0 else {
                    return .bad("value \(tag.value("value") ?? "(none)") is not a number ≥ 0")
                }
                value = v
                if let unit = tag.raw("unit"), unit.elementsEqual("kJ".utf8) { value /= 4.184 }   // energy is rolled up in kcal
            }
            // The source is the app or device name: the `device` attribute holds a memory address
            // (`<<HKDevice: 0x283b1c2d0>, …`) that changes between exports, so it cannot be part of the identity.
            return .sample(HealthSample(kind: kind, start: start, end: end, offset: offset, value: value, source: source(tag.raw("sourceName"))))
        }

        private mutating func source(_ raw: UnsafeBufferPointer<UInt8>?) -> String {
            guard let raw else { return "" }
            if let known = sources.first(where: { $0.0.elementsEqual(raw) }) { return known.1 }
            let name = StartTagScanner.decodeEntities(raw)
            if sources.count < 64 { sources.append((Array(raw), name)) }
            return name
        }
    }

    /// `2024-06-01 08:00:00 +0200` → (seconds since 1970 UTC, offset in seconds).
    static func parseDate(_ text: String) -> (Double, Int)? {
        var text = text
        return text.withUTF8 { parseDate($0) }
    }

    /// The same from bytes, for readers that scan a buffer (Health Auto Export JSON) and would
    /// otherwise make a `String` per date.
    static func parseDate(_ b: UnsafeBufferPointer<UInt8>) -> (Double, Int)? {
        guard b.count == 25, b[4] == 0x2D, b[7] == 0x2D, b[10] == 0x20, b[13] == 0x3A, b[16] == 0x3A, b[19] == 0x20,
              b[20] == 0x2B || b[20] == 0x2D else { return nil }
        func n(_ from: Int, _ count: Int) -> Int? {
            var v = 0
            for c in b[from..<(from + count)] { guard (0x30...0x39).contains(c) else { return nil }; v = v * 10 + Int(c - 0x30) }
            return v
        }
        guard let y = n(0, 4), let mo = n(5, 2), let d = n(8, 2), let h = n(11, 2), let mi = n(14, 2), let s = n(17, 2),
              let oh = n(21, 2), let om = n(23, 2), (1...12).contains(mo), (1...31).contains(d), h < 24, mi < 60, s < 61 else { return nil }
        let offset = (b[20] == 0x2D ? -1 : 1) * (oh * 3600 + om * 60)
        let local = CivilCalendar.days(year: y, month: mo, day: d) * 86_400 + h * 3600 + mi * 60 + s
        return (Double(local - offset), offset)
    }
}
