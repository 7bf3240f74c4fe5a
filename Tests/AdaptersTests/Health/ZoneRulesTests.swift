import Foundation
import Testing
@testable import Adapters

/// The tz database reader against Foundation's ICU time zones (which the test process has and the
/// agent does not), and its POSIX footer rules beyond the files' last transition.
struct ZoneRulesTests {
    @Test(arguments: ["Europe/Berlin", "America/New_York", "Australia/Sydney", "Asia/Kolkata", "Europe/Istanbul", "America/Sao_Paulo", "UTC"])
    func offsetsMatchICUFrom1970To2036(_ name: String) throws {
        let rules = try #require(ZoneRules(named: name))
        let icu = try #require(TimeZone(identifier: name))
        var t = 0.0
        var checked = 0
        while t < 2_100_000_000 {                       // 2036-07
            #expect(rules.offset(at: t) == icu.secondsFromGMT(for: Date(timeIntervalSince1970: t)), "\(name) at \(t)")
            t += 86_400 * 13 + 3_607; checked += 1
        }
        #expect(checked > 1800)
    }

    @Test func theHourAroundEachChangeIsExact() throws {
        let berlin = try #require(ZoneRules(named: "Europe/Berlin"))
        // 2024-03-31 01:00 UTC clocks go 02:00 → 03:00; 2024-10-27 01:00 UTC 03:00 → 02:00.
        #expect(berlin.offset(at: 1_711_846_799) == 3600 && berlin.offset(at: 1_711_846_800) == 7200)
        #expect(berlin.offset(at: 1_729_990_799) == 7200 && berlin.offset(at: 1_729_990_800) == 3600)
    }

    @Test func afterTheLastTransitionTheFootersRuleApplies() throws {
        let rule = try #require(PosixRule("CET-1CEST,M3.5.0,M10.5.0/3"))
        // 2050-03-27 is the last Sunday of March 2050: the change is at 01:00 UTC.
        let change = Int64(CivilCalendar.days(year: 2050, month: 3, day: 27)) * 86_400 + 3600
        #expect(rule.offset(at: change - 1) == 3600 && rule.offset(at: change) == 7200)
        // Sydney's daylight time spans the new year.
        let sydney = try #require(PosixRule("AEST-10AEDT,M10.1.0,M4.1.0/3"))
        #expect(sydney.offset(at: Int64(CivilCalendar.days(year: 2050, month: 1, day: 15)) * 86_400) == 39_600)
        #expect(sydney.offset(at: Int64(CivilCalendar.days(year: 2050, month: 6, day: 15)) * 86_400) == 36_000)
        #expect(try #require(PosixRule("<+03>-3")).offset(at: 0) == 10_800)
        #expect(PosixRule("garbage,") == nil)
        let far = try #require(ZoneRules(named: "Europe/Berlin"))
        #expect(far.offset(at: Double(change)) == 7200 && far.offset(at: Double(change - 1)) == 3600)
    }

    @Test func unknownOrEscapingNamesAreNil() {
        #expect(ZoneRules(named: "Mars/Olympus_Mons") == nil)
        #expect(ZoneRules(named: "../../etc/passwd") == nil)
        #expect(ZoneRules(named: "/etc/localtime") == nil)
        #expect(ZoneRules(named: "") == nil)
    }
}
