import BraidKafka
import Synchronization

/// Holds requests back while a dependency is down. Requests that reach the gate during an
/// outage wait here without using up attempts, until the outage ends (``end()``), their
/// partition is revoked (``revoke(_:)``: the next owner gets them again) or the worker stops.
final class PauseGate: Sendable {
    enum Outcome: Sendable, Equatable {
        /// The dependency answers again: try the request.
        case resumed
        /// The request's partition was revoked (or it was revoked before it could wait):
        /// abandon it.
        case revoked
        /// The worker is shutting down, or the waiting task was cancelled: abandon it.
        case stopping
    }

    private struct Waiter {
        let partition: TopicPartition
        let continuation: CheckedContinuation<Outcome, Never>
    }

    private struct State {
        var outage: ProcessingFailure.Dependency?
        var stopping = false
        var nextID = 0
        var waiters: [Int: Waiter] = [:]

        mutating func take(_ matching: (Waiter) -> Bool) -> [CheckedContinuation<Outcome, Never>] {
            let ids = waiters.filter { matching($0.value) }.keys
            return ids.compactMap { waiters.removeValue(forKey: $0)?.continuation }
        }
    }

    private let state = Mutex(State())

    /// The dependency that is down, if any.
    var outage: ProcessingFailure.Dependency? { state.withLock { $0.outage } }

    /// Requests waiting for the outage to end.
    var waiting: Int { state.withLock { $0.waiters.count } }

    /// Starts an outage; false when one is under way already (or the worker is stopping).
    func begin(_ dependency: ProcessingFailure.Dependency) -> Bool {
        state.withLock { state in
            guard state.outage == nil, !state.stopping else { return false }
            state.outage = dependency
            return true
        }
    }

    /// Ends the outage: every waiting request is tried again.
    func end() {
        let resumed = state.withLock { state in
            state.outage = nil
            return state.take { _ in true }
        }
        for continuation in resumed { continuation.resume(returning: .resumed) }
    }

    /// Waits while an outage lasts; returns at once with `.resumed` when there is none.
    /// `stillCurrent` is checked under the gate's lock before waiting, so a revocation that
    /// has begun (and will call ``revoke(_:)``, or already did) is never missed. A cancelled
    /// task stops waiting (`.stopping`): the worker's tasks are cancelled when its service
    /// is, without ``stop()``, and a request held here would otherwise keep it from returning.
    func wait(partition: TopicPartition, stillCurrent: () -> Bool) async -> Outcome {
        let id = state.withLock { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let now: Outcome? = state.withLock { state in
                    if state.stopping || Task.isCancelled { return .stopping }
                    guard state.outage != nil else { return .resumed }
                    guard stillCurrent() else { return .revoked }
                    state.waiters[id] = Waiter(partition: partition, continuation: continuation)
                    return nil
                }
                if let now { continuation.resume(returning: now) }
            }
        } onCancel: {
            let cancelled = state.withLock { $0.waiters.removeValue(forKey: id) }
            cancelled?.continuation.resume(returning: .stopping)
        }
    }

    /// Partitions are being revoked: their waiting requests give up.
    func revoke(_ partitions: Set<TopicPartition>) {
        let revoked = state.withLock { state in state.take { partitions.contains($0.partition) } }
        for continuation in revoked { continuation.resume(returning: .revoked) }
    }

    /// The worker is shutting down: every waiting request gives up, and so does every later one.
    func stop() {
        let stopped = state.withLock { state in
            state.stopping = true
            return state.take { _ in true }
        }
        for continuation in stopped { continuation.resume(returning: .stopping) }
    }
}
