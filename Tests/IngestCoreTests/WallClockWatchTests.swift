import IngestCore
import Testing

/// Steps of the wall clock, told apart from time passing by CLOCK_BOOTTIME.
struct WallClockWatchTests {
    @Test func aSuspendAndSlewAreNotStepsAndASettingIs() {
        let clock = Locked(WallClockWatch.Reading(wall: 1000, sinceBoot: 50))
        var watch = WallClockWatch { clock.withLock { $0 } }
        func at(_ wall: Double, _ sinceBoot: Double) -> (wall: Double, step: Double) {
            clock.withLock { $0 = .init(wall: wall, sinceBoot: sinceBoot) }
            return watch.now()
        }
        #expect(at(1000, 50) == (1000, 0), "the first reading has nothing to compare with")
        #expect(at(4600, 3650) == (4600, 0), "an hour asleep: boot time counts it too")
        #expect(at(4610.5, 3660) == (4610.5, 0), "half a second of NTP slew")
        #expect(at(1020.5, 3670) == (1020.5, -3600), "set an hour back")
        #expect(at(4640.5, 3690) == (4640.5, 3600), "and an hour forward")
    }

    @Test func theSystemClocksAgreeWithThemselves() {
        var watch = WallClockWatch()
        let first = watch.now(), second = watch.now()
        #expect(first.step == 0 && second.step == 0 && second.wall >= first.wall)
    }
}
