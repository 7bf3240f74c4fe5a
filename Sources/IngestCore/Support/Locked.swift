#if canImport(Glibc)
import Glibc
#endif

/// A value that threads share, under a pthread mutex.
///
/// Not `Synchronization.Mutex`: on Linux a contended Mutex is handed over inside the kernel
/// (FUTEX_LOCK_PI) by the uninstrumented standard library, so ThreadSanitizer sees no ordering
/// between two holders and reports every guarded access as a race. It intercepts pthread locks,
/// so with this one its reports are about our code. Uncontended, both cost about the same.
public final class Locked<Value: ~Copyable>: @unchecked Sendable {
    // @unchecked: `value` is only reached inside `withLock`, while `mutex` is held.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var value: Value

    public init(_ value: consuming sending Value) {
        self.value = value
        mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    public func withLock<Result: ~Copyable, E: Error>(_ body: (inout sending Value) throws(E) -> sending Result) throws(E) -> sending Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
