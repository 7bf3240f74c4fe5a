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

    /// The sample of one Record, from its attributes (`attribute(name)` gives one, decoded).
    static func sample(_ attribute: (String) -> String?) -> Outcome {
        guard let type = attribute("type") else { return .bad("Record without a type") }
        let kind: HealthSample.Kind
        if let quantity = quantityKinds[type] { kind = quantity }
        else if type == "HKCategoryTypeIdentifierSleepAnalysis" {
            guard let stage = attribute("value").flatMap({ sleepStages[$0] }) else { return .bad("unknown sleep value \(attribute("value") ?? "(none)")") }
            kind = .sleep(stage)
        } else { return .ignored }
        guard let (start, offset) = attribute("startDate").flatMap(parseDate) else { return .bad("unreadable startDate \(attribute("startDate") ?? "(none)")") }
        guard let (end, _) = attribute("endDate").flatMap(parseDate), end >= start else { return .bad("unreadable or early endDate \(attribute("endDate") ?? "(none)")") }
        var value: Double
        if case .sleep = kind { value = end - start } else {
            guard let v = attribute("value").flatMap(Double.init), v.isFinite, v >= 0 else { return .bad("value \(attribute("value") ?? "(none)") is not a number ≥ 0") }
            value = v
            if attribute("unit") == "kJ" { value /= 4.184 }          // energy is rolled up in kcal
        }
        // The source is the app or device name: the `device` attribute holds a memory address
        // (`<<HKDevice: 0x283b1c2d0>, …`) that changes between exports, so it cannot be part of the identity.
        return .sample(HealthSample(kind: kind, start: start, end: end, offset: offset, value: value,
                                    source: attribute("sourceName") ?? ""))
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
