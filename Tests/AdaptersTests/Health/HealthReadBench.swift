import Foundation
import Testing
@testable import Adapters

/// Not a test: the in-process half of `bench/health-json.sh`. With HEARTHLOOM_BENCH_HAE naming a
/// Health Auto Export JSON it times what `bench/hae_rollup.py` times in Python (read the file into
/// samples, roll them up into days) and prints the figures; it asserts nothing about time.
/// `make test` leaves it disabled.
struct HealthReadBench {
    static let file = ProcessInfo.processInfo.environment["HEARTHLOOM_BENCH_HAE"]

    @Test(.enabled(if: HealthReadBench.file != nil)) func readAndRollUp() throws {
        let path = try #require(Self.file)
        var best = (read: Double.infinity, rollup: Double.infinity)
        var days: [DayRollup.Day] = []
        var samples = 0
        for _ in 0..<5 {
            let clock = ContinuousClock()
            let out = HealthCollector(chunkSize: .max)
            let start = clock.now
            try HealthAutoExportJSON.read(HealthInput(path: path), HealthSettings(), into: out)
            let read = clock.now
            days = DayRollup(priority: []).days(out.samples)
            let end = clock.now
            samples = out.samples.count
            best = (min(best.read, seconds(read - start)), min(best.rollup, seconds(end - read)))
        }
        let steps = days.reduce(0) { $0 + ($1.steps ?? 0) }
        print("swift-in-process: samples \(samples) days \(days.count) steps \(Int(steps)) read \(best.read) rollup \(best.rollup) total \(best.read + best.rollup)")
        #expect(days.count > 0)
    }

    func seconds(_ d: Duration) -> Double { Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18 }
}
