import Synchronization

/// The operation did not finish before its deadline.
struct DeadlineExceeded: Error, Sendable {}

enum Deadline {
    /// Returns the operation's result, or throws ``DeadlineExceeded`` once `timeout` has passed.
    ///
    /// The operation runs in an unstructured task on purpose: a task group would wait for a
    /// child that ignores cancellation (a SQLite query on the thread pool cannot be
    /// interrupted), and then the page would wait for the slow backend after all. The task
    /// is cancelled at the deadline and finishes in the background.
    static func run<T: Sendable>(
        timeout: Duration, _ operation: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        let outcome = Outcome<T>()
        let work = Task { try await operation() }
        let timer = Task {
            try await Task.sleep(for: timeout)
            outcome.finish(.failure(DeadlineExceeded()))
            work.cancel()
        }
        Task {
            let result = await work.result
            timer.cancel()
            outcome.finish(result)
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { outcome.wait($0) }
        } onCancel: {
            work.cancel()
            timer.cancel()
            outcome.finish(.failure(CancellationError()))
        }
    }

    /// The first of (result, deadline, cancellation) wins, whether or not the waiter is
    /// already suspended when it arrives.
    private final class Outcome<T: Sendable>: Sendable {
        private struct State {
            var continuation: CheckedContinuation<T, any Error>?
            var result: Result<T, any Error>?
        }

        private let state = Mutex(State())

        func wait(_ continuation: CheckedContinuation<T, any Error>) {
            let early = state.withLock { state -> Result<T, any Error>? in
                if let result = state.result { return result }
                state.continuation = continuation
                return nil
            }
            if let early { continuation.resume(with: early) }
        }

        func finish(_ result: Result<T, any Error>) {
            let waiter = state.withLock { state -> CheckedContinuation<T, any Error>? in
                guard state.result == nil else { return nil }
                state.result = result
                return state.continuation.take()
            }
            waiter?.resume(with: result)
        }
    }
}
