import Dispatch

/// Runs blocking work (sd-bus calls, a connect to gpsd) on a Dispatch thread, so it holds none
/// of the few threads async tasks share.
func offThePool<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { (done: CheckedContinuation<T, Never>) in
        DispatchQueue.global().async { done.resume(returning: body()) }
    }
}
