@testable import IngestCore
import Testing

/// `doctor`'s reading of `systemctl --user show` (the user manager itself is not here to ask).
struct SystemdUnitsTests {
    func show(timer: String, service: String, watch: String = "LoadState=not-found\nUnitFileState=") -> [String: [String: String]] {
        SystemdUnits.units(from: "Id=hearthloom-ingest.timer\n\(timer)\n\nId=hearthloom-ingest.service\n\(service)\n\nId=hearthloom-ingest-watch.service\n\(watch)\n")
    }

    @Test func enabledTimerWithASuccessfulLastRunIsOK() {
        let checks = SystemdUnits.findings(show(timer: "LoadState=loaded\nUnitFileState=enabled",
                                                service: "LoadState=loaded\nResult=success\nExecMainStatus=0\nExecMainStartTimestamp=Tue 2026-12-01 12:00:00 UTC"))
        #expect(checks.map(\.status) == [.ok, .ok])
        #expect(checks[1].finding == "Tue 2026-12-01 12:00:00 UTC: succeeded")
    }

    @Test func exit4CountsAsSuccessForSystemdButIsAWarningHere() {
        let checks = SystemdUnits.findings(show(timer: "LoadState=loaded\nUnitFileState=enabled",
                                                service: "LoadState=loaded\nResult=success\nExecMainStatus=4\nExecMainStartTimestamp=Tue 2026-12-01 12:00:00 UTC"))
        #expect(checks.last?.status == .warn)
        #expect(checks.last?.finding.contains("exit 4") == true)
    }

    @Test func aFailedRunPointsAtTheJournal() {
        let checks = SystemdUnits.findings(show(timer: "LoadState=loaded\nUnitFileState=enabled",
                                                service: "LoadState=loaded\nResult=exit-code\nExecMainStatus=3\nExecMainStartTimestamp=Tue 2026-12-01 12:00:00 UTC"))
        #expect(checks.last?.finding.contains("Result=exit-code, exit status 3") == true)
        #expect(checks.last?.fix == "see `journalctl --user -u hearthloom-ingest.service`")
    }

    @Test func installedButDisabledAndNotInstalledAreWarnings() {
        let disabled = SystemdUnits.findings(show(timer: "LoadState=loaded\nUnitFileState=disabled", service: "LoadState=loaded"))
        #expect(disabled.map(\.status) == [.warn])
        #expect(disabled[0].fix == "systemctl --user enable --now hearthloom-ingest.timer")
        let missing = SystemdUnits.findings(show(timer: "LoadState=not-found\nUnitFileState=", service: "LoadState=not-found"))
        #expect(missing.map(\.status) == [.warn])
        #expect(missing[0].finding.contains("not installed"))
    }

    @Test func theWatchServiceAloneIsEnough() {
        let checks = SystemdUnits.findings(show(timer: "LoadState=loaded\nUnitFileState=disabled", service: "LoadState=loaded",
                                                watch: "LoadState=loaded\nUnitFileState=enabled"))
        #expect(checks.map(\.status) == [.ok])
        #expect(checks[0].finding == "hearthloom-ingest-watch.service installed and enabled")
    }
}
