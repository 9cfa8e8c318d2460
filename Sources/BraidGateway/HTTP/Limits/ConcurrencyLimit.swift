import DequeModule
import Synchronization

/// At most `limit` holders at once; the rest wait in line, first come first served, each for
/// at most its own deadline, and at most `maxWaiting` of them (further ones are turned away at
/// once, which costs nothing).
///
/// Waiting suspends the task without holding a thread, so requests in line cost memory only.
final class ConcurrencyLimit: Sendable {
    let limit: Int
    let maxWaiting: Int

    private struct Waiter {
        var id: UInt64
        var continuation: CheckedContinuation<Bool, Never>
    }

    private struct State {
        var holders = 0
        var waiting: Deque<Waiter> = []
        var nextID: UInt64 = 0
    }

    private let state = Mutex(State())

    init(limit: Int, maxWaiting: Int) {
        precondition(limit > 0 && maxWaiting >= 0)
        self.limit = limit
        self.maxWaiting = maxWaiting
    }

    /// True once the caller holds a place (it must ``release()`` it); false when the line was
    /// full or `timeout` passed first.
    func acquire(within timeout: Duration) async -> Bool {
        enum Entry { case held, full, queued(UInt64) }
        let entry: Entry = state.withLock { state in
            if state.holders < limit, state.waiting.isEmpty {
                state.holders += 1
                return .held
            }
            guard state.waiting.count < maxWaiting else { return .full }
            state.nextID += 1
            return .queued(state.nextID)
        }
        switch entry {
        case .held: return true
        case .full: return false
        case .queued(let id):
            return await withCheckedContinuation { continuation in
                let admitted: Bool? = state.withLock { state in
                    // A place may have come free between the two locks.
                    if state.holders < limit, state.waiting.isEmpty {
                        state.holders += 1
                        return true
                    }
                    state.waiting.append(Waiter(id: id, continuation: continuation))
                    return nil
                }
                if let admitted {
                    continuation.resume(returning: admitted)
                    return
                }
                Task { [weak self] in
                    try? await Task.sleep(for: timeout)
                    self?.expire(id)
                }
            }
        }
    }

    /// Hands the place to the longest waiter, or frees it.
    func release() {
        let next: Waiter? = state.withLock { state in
            if let waiter = state.waiting.popFirst() { return waiter }
            state.holders -= 1
            return nil
        }
        next?.continuation.resume(returning: true)
    }

    /// Waiters in line now (for metrics and tests).
    var waitingCount: Int { state.withLock { $0.waiting.count } }

    private func expire(_ id: UInt64) {
        let waiter: Waiter? = state.withLock { state in
            guard let index = state.waiting.firstIndex(where: { $0.id == id }) else { return nil }
            return state.waiting.remove(at: index)
        }
        waiter?.continuation.resume(returning: false)
    }
}
