import Foundation

/// Runs blocking or long CPU-bound work on a thread of its own and awaits its result.
///
/// Swift's cooperative pool has one thread per core (two here): work that holds a pool thread
/// for seconds, a C call that blocks or a simulation chunk, stalls every other task's wake-ups
/// in the process. A thread of its own is scheduled by the kernel beside them instead.
public func runOffPool<T: Sendable, Failure: Error>(_ body: @escaping @Sendable () throws(Failure) -> T) async throws(Failure) -> T {
    let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<T, Failure>, Never>) in
        Thread { continuation.resume(returning: Result { () throws(Failure) -> T in try body() }) }.start()
    }
    return try result.get()
}
