import IngestCore

extension DoctorCheck {
    /// `doctor`'s look at a bus, off the cooperative pool: `look` runs on a new connection. A bus
    /// that cannot be reached, or goes away during the look, is a warning with `fix`: doctor may
    /// run outside the desktop session the adapter runs in.
    static func onBus(_ kind: BusConnection.Kind, unreachableFix fix: String,
                      _ look: @escaping @Sendable (BusConnection) throws(BusError) -> [DoctorCheck]) async -> [DoctorCheck] {
        await WorkerThreads.run("\(kind.rawValue)-bus.doctor") {
            do throws(BusError) { return try look(try BusConnection(kind)) } catch {
                return [.warn("\(kind.rawValue) bus", "not reachable from here (\(error.description))", fix: fix)]
            }
        }
    }
}
