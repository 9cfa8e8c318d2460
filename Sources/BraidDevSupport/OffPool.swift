import Foundation

/// Runs blocking work (direct C calls in tests) on a thread of its own, so it never occupies
/// one of the few threads of Swift's cooperative pool while other tests run in parallel.
public func runOffPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        let thread = Thread {
            continuation.resume(with: Result { try body() })
        }
        thread.start()
    }
}
