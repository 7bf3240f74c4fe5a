import Foundation
import Testing
@testable import Adapters
import IngestCore

/// The stored form of samples and workouts: packs round-trip every sample bit for bit, decode in
/// the order the single records of the layout before did (so sums come out the same), keep a
/// sample's identity (the same sample from two exports counts once, its later value winning),
/// and name the day a sample counts toward.
struct HealthSampleCodecTests {
    let sources = ["Anna's Apple Watch", "Anna's Apple Watch|Anna's iPhone", "Fitbit"]

    /// Samples of every kind over three days from three sources, with equal times across
    /// sources, a sample read twice with another value, fractions, offsets that change, and
    /// figures that fit no short form.
    func mixedSamples() -> [HealthSample] {
        let kinds: [HealthSample.Kind] = [.steps, .activeEnergy, .basalEnergy, .heartRate, .restingHeartRate, .hrv]
            + HealthSample.SleepStage.allCases.map { .sleep($0) }
        let values: [Double] = [0, 7, 120, 65.5, 4.123, 0.1 + 0.2, 1e-9, 123_456_789.125, 3.141592653589793]
        var out: [HealthSample] = []
        for i in 0..<600 {
            let kind = kinds[i % kinds.count]
            let start = 1_717_200_000 + Double((i * 7919) % 250_000) + (i % 5 == 0 ? 0.25 : 0)
            var s = HealthSample(kind: kind, start: start, end: start + Double(i % 4) * 60 + (i % 7 == 0 ? 0.5 : 0),
                                 offset: [7200, 3600, -14_400, 19_800][(i / 3) % 4], value: values[i % values.count],
                                 source: sources[(i / 2) % 3], daily: i % 11 == 0)
            if case .heartRate = kind, i % 2 == 0 { s.low = s.value - 3; s.high = s.value + 10.5 }
            out.append(s)
            if i % 9 == 0 { var other = s; other.source = sources[(i / 2 + 1) % 3]; out.append(other) }    // the same time, another source
        }
        var again = out[10]; again.value = 99
        return out + [again]
    }

    @Test func packsDecodeToTheSamplesTheSingleRecordsHeldInTheirOrder() {
        let samples = mixedSamples()
        let singles = Dictionary(grouping: SingleSampleRecord.stored(samples), by: \.group)
        let packs = Dictionary(grouping: HealthSamplePack.records(samples), by: \.group)
        #expect(Set(packs.keys) == Set(singles.keys))
        #expect(packs.values.reduce(0) { $0 + $1.count } * 6 < samples.count, "a record per day, kind, daily-ness and source")
        for (day, records) in singles {
            let expected = HealthSampleCodec.decode(group: records)
            #expect(expected.samples.count == records.count)
            #expect(HealthSampleCodec.decode(group: packs[day]!.shuffled()) == expected, "\(day): the same samples, in the same order")
        }
    }

    @Test func aPackWrittenAgainTakesNewSamplesAndLaterValuesAndOtherwiseStaysTheSame() throws {
        func sample(_ minute: Double, _ value: Double) -> HealthSample {
            HealthSample(kind: .steps, start: 1_717_221_600 + minute * 60, end: 1_717_221_660 + minute * 60, offset: 7200, value: value, source: "w")
        }
        let stored = try #require(HealthSamplePack.records([sample(0, 10), sample(1, 20), sample(2, 30)]).first)
        let written = try #require(HealthSamplePack.records([sample(3, 40), sample(1, 21)]).first)
        #expect(stored.key == written.key && stored.shelf == written.shelf)
        let merged = HealthSamplePack.merge(written, stored.value)
        #expect(HealthSamplePack.decode(merged)?.map(\.value) == [10, 21, 30, 40])
        #expect(HealthSamplePack.merge(stored, stored.value) == stored.value, "the same samples again: the same bytes")
        #expect(HealthSamplePack.coalesced([stored, written]).map(\.value) == [merged], "adjacent packs of one key, merged in order")

        let run = HealthWorkout(activity: "running", start: 1_717_304_700, end: 1_717_306_590, offset: 7200, energyKcal: 402.5, distanceM: nil, source: "Watch")
        var corrected = run; corrected.energyKcal = 410
        #expect(HealthSamplePack.merge(HealthSampleCodec.stored(corrected), HealthSampleCodec.stored(run).value) == HealthSampleCodec.stored(corrected).value,
                "a workout written again replaces the stored one")
    }

    @Test func workoutsAndSingleRecordsRoundTrip() {
        let rate = HealthSample(kind: .heartRate, start: 1_717_221_600, end: 1_717_221_660, offset: 7200, value: 71.5,
                                source: "Anna's Apple Watch|iPhone", low: 60, high: 88)
        let night = HealthSample(kind: .sleep(.rem), start: 1_717_279_000, end: 1_717_282_600, offset: -14_400, value: 3600, source: "Fitbit")
        let run = HealthWorkout(activity: "running", start: 1_717_304_700, end: 1_717_306_590, offset: 7200, energyKcal: 402.5, distanceM: nil, source: "Watch")
        var decoder = HealthSampleCodec.Decoder()
        for s in [rate, night] { #expect(decoder.decode(SingleSampleRecord.make(s)) == .sample(s)) }
        #expect(decoder.decode(HealthSampleCodec.stored(run)) == .workout(run))
        #expect(HealthSampleCodec.decode(group: [HealthSampleCodec.stored(run)] + HealthSamplePack.records([night])) == HealthSampleCodec.Day(samples: [night], workouts: [run]))
    }

    @Test func theGroupIsTheDayTheSampleCountsToward() {
        // 23:30 at +02:00 on 1 June: steps count on 1 June; sleep ending then counts toward 2 June.
        let late = 1_717_277_400.0
        let samples = [HealthSample(kind: .steps, start: late, end: late + 60, offset: 7200, value: 10, source: "x"),
                       HealthSample(kind: .sleep(.core), start: late - 1800, end: late, offset: 7200, value: 1800, source: "x"),
                       HealthSample(kind: .sleep(.core), start: late + 3600 * 6, end: late + 3600 * 7, offset: 7200, value: 3600, source: "x")]
        #expect(HealthSamplePack.records(samples).map(\.group) == ["2024-06-01", "2024-06-02"])
        #expect(HealthSamplePack.records(samples, group: "2024-05-31").map(\.group) == ["2024-05-31", "2024-05-31"])
    }

    @Test func bytesThisVersionDidNotWriteAreNotSamples() throws {
        var decoder = HealthSampleCodec.Decoder()
        let good = SingleSampleRecord.make(HealthSample(kind: .hrv, start: 0, end: 0, offset: 0, value: 40, source: "x"))
        var cut = good; cut.key.removeLast(2)
        var shortValue = good; shortValue.value.removeLast()
        var unknown = good; unknown.key[0] = 9
        for bad in [cut, shortValue, unknown, StateRecord(group: "", key: [], value: [])] { #expect(decoder.decode(bad) == nil) }

        let pack = try #require(HealthSamplePack.records([HealthSample(kind: .hrv, start: 1e9, end: 1e9, offset: 0, value: 40.5, source: "x", low: 1)]).first)
        #expect(HealthSamplePack.decode(pack.value) != nil)
        let broken: [[UInt8]] = [Array(pack.value.dropLast()), [2] + pack.value.dropFirst(), [1, 0x80], [1, 8, 0, 0, 0]]
        for bytes in broken {
            #expect(HealthSamplePack.decode(bytes) == nil, "\(bytes)")
        }
        var badPack = pack; badPack.value = [1, 0x80]
        #expect(HealthSampleCodec.decode(group: [badPack]) == HealthSampleCodec.Day())
    }
}
