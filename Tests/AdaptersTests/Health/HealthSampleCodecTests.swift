import Foundation
import Testing
@testable import Adapters
import IngestCore

/// The stored form of samples and workouts: it round-trips exactly, it is the identity (the same
/// sample from two exports gives the same bytes), and it names the day a sample counts toward.
struct HealthSampleCodecTests {
    @Test func samplesAndWorkoutsRoundTrip() throws {
        let rate = HealthSample(kind: .heartRate, start: 1_717_221_600, end: 1_717_221_660, offset: 7200, value: 71.5,
                                source: "Anna's Apple Watch|iPhone", low: 60, high: 88)
        let daily = HealthSample(kind: .steps, start: 1_717_192_800, end: 1_717_279_200, offset: 7200, value: 8123, source: "sheet.csv", daily: true)
        let night = HealthSample(kind: .sleep(.rem), start: 1_717_279_000, end: 1_717_282_600, offset: -14_400, value: 3600, source: "Fitbit")
        let run = HealthWorkout(activity: "running", start: 1_717_304_700, end: 1_717_306_590, offset: 7200, energyKcal: 402.5, distanceM: nil, source: "Watch")
        var decoder = HealthSampleCodec.Decoder()
        for s in [rate, daily, night] { #expect(decoder.decode(HealthSampleCodec.stored(s)) == .sample(s)) }
        #expect(decoder.decode(HealthSampleCodec.stored(run)) == .workout(run))
        #expect(HealthSampleCodec.stored(rate) == HealthSampleCodec.stored(rate), "the same sample is the same row")
        var other = rate; other.value = 71.6
        #expect(HealthSampleCodec.stored(other).key == HealthSampleCodec.stored(rate).key, "another value of the same reading replaces it")
        #expect(HealthSampleCodec.stored(other).value != HealthSampleCodec.stored(rate).value)
        var elsewhere = rate; elsewhere.source = "Anna's iPhone"
        #expect(HealthSampleCodec.stored(elsewhere).key != HealthSampleCodec.stored(rate).key, "another source is another sample")
    }

    @Test func aKindsSamplesSortByTimeAsStored() {
        let times: [Double] = [-86_400.5, -1, 0, 1_717_221_600, 1_717_221_600.25, 1_717_221_660]
        let stored = times.map { HealthSampleCodec.stored(HealthSample(kind: .steps, start: $0, end: $0 + 60, offset: 0, value: 5, source: "x")) }
        for (a, b) in zip(stored, stored.dropFirst()) { #expect(a.key.lexicographicallyPrecedes(b.key)) }
        var decoder = HealthSampleCodec.Decoder()
        #expect(stored.map { if case .sample(let s) = decoder.decode($0) { s.start } else { .nan } } == times)
    }

    @Test func theBucketIsTheDayTheSampleCountsToward() {
        // 23:30 at +02:00 on 1 June: steps count on 1 June; sleep ending then counts toward 2 June.
        let late = 1_717_277_400.0
        #expect(HealthSampleCodec.stored(HealthSample(kind: .steps, start: late, end: late + 60, offset: 7200, value: 10, source: "x")).group == "2024-06-01")
        #expect(HealthSampleCodec.stored(HealthSample(kind: .sleep(.core), start: late - 1800, end: late, offset: 7200, value: 1800, source: "x")).group == "2024-06-02")
        #expect(HealthSampleCodec.stored(HealthSample(kind: .sleep(.core), start: late + 3600 * 6, end: late + 3600 * 7, offset: 7200, value: 3600, source: "x")).group == "2024-06-02")
    }

    @Test func bytesThisVersionDidNotWriteAreNotSamples() {
        var decoder = HealthSampleCodec.Decoder()
        let good = HealthSampleCodec.stored(HealthSample(kind: .hrv, start: 0, end: 0, offset: 0, value: 40, source: "x"))
        var cut = good; cut.key.removeLast(2)
        var shortValue = good; shortValue.value.removeLast()
        var unknown = good; unknown.key[0] = 9
        for bad in [cut, shortValue, unknown, StateRecord(group: "", key: [], value: [])] { #expect(decoder.decode(bad) == nil) }
    }
}
