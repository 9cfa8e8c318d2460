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
        let timer = Task {
            try await Task.sleep(for: timeout)
            outcome.finish(.failure(DeadlineExceeded()))
        }
        // The work hands its result over itself: a task awaiting it to do that would be one
        // more hop between threads on every live query's way back.
        let work = Task {
            let result: Result<T, any Error>
            do {
                result = .success(try await operation())
            } catch {
                result = .failure(error)
            }
            timer.cancel()
            outcome.finish(result)
        }
        do {
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { outcome.wait($0) }
            } onCancel: {
                outcome.finish(.failure(CancellationError()))
            }
        } catch {
            // The deadline or a cancellation came first: the work finishes in the background.
            work.cancel()
            timer.cancel()
            throw error
        }
    }

    /// Runs every operation at once under one deadline: each one's result in order, or
    /// ``DeadlineExceeded`` for those not finished by then (they are cancelled and finish in
    /// the background, as in ``run(timeout:_:)``). A batch of components shares one deadline,
    /// and one timer for all of them costs a batch far less than ``run(timeout:_:)`` for
    /// each (three tasks and a timer per component).
    static func runEach<T: Sendable>(
        timeout: Duration, _ operations: [@Sendable () async throws -> T]
    ) async -> [Result<T, any Error>] {
        guard !operations.isEmpty else { return [] }
        let results = Results<T>(count: operations.count)
        let work = operations.enumerated().map { index, operation in
            Task {
                do {
                    results.finish(index, .success(try await operation()))
                } catch {
                    results.finish(index, .failure(error))
                }
            }
        }
        let timer = Task {
            try await Task.sleep(for: timeout)
            results.close(with: DeadlineExceeded())
            for task in work { task.cancel() }
        }
        let all = await withTaskCancellationHandler {
            await withCheckedContinuation { results.wait($0) }
        } onCancel: {
            results.close(with: CancellationError())
            for task in work { task.cancel() }
        }
        timer.cancel()
        return all
    }

    /// The results of ``runEach(timeout:_:)``: complete once every operation has finished, or
    /// closed early (the deadline, cancellation) with that error for the unfinished ones.
    private final class Results<T: Sendable>: Sendable {
        private struct State {
            var results: [Result<T, any Error>?]
            var remaining: Int
            var final: [Result<T, any Error>]?
            var continuation: CheckedContinuation<[Result<T, any Error>], Never>?
        }

        private let state: Mutex<State>

        init(count: Int) {
            state = Mutex(State(results: Array(repeating: nil, count: count), remaining: count))
        }

        func wait(_ continuation: CheckedContinuation<[Result<T, any Error>], Never>) {
            let early = state.withLock { state -> [Result<T, any Error>]? in
                if let final = state.final { return final }
                state.continuation = continuation
                return nil
            }
            if let early { continuation.resume(returning: early) }
        }

        func finish(_ index: Int, _ result: Result<T, any Error>) {
            resume(state.withLock { state -> Sealed? in
                guard state.final == nil else { return nil }
                state.results[index] = result
                state.remaining -= 1
                return state.remaining == 0 ? Self.seal(&state, unfinished: CancellationError()) : nil
            })
        }

        func close(with error: any Error) {
            resume(state.withLock { state -> Sealed? in
                state.final == nil ? Self.seal(&state, unfinished: error) : nil
            })
        }

        private typealias Sealed = (waiter: CheckedContinuation<[Result<T, any Error>], Never>?, final: [Result<T, any Error>])

        /// Fixes the final results (`unfinished` for each operation still running) and takes
        /// the waiter, if one is suspended already.
        private static func seal(_ state: inout State, unfinished: any Error) -> Sealed {
            let final = state.results.map { $0 ?? .failure(unfinished) }
            state.final = final
            return (state.continuation.take(), final)
        }

        private func resume(_ sealed: Sealed?) {
            if let sealed, let waiter = sealed.waiter { waiter.resume(returning: sealed.final) }
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
