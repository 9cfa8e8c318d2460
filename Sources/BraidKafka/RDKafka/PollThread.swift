import Foundation
import Synchronization

/// A dedicated OS thread that runs one client's poll loop. librdkafka's poll calls block, and
/// callbacks (delivery reports, rebalances) run inside them, so they live here rather than on
/// the cooperative pool; async callers are resumed through continuations.
final class PollThread: Sendable {
    /// Why the loop should end.
    enum Stop: Sendable, Equatable {
        /// Finish cleanly: producers flush, consumers commit and leave the group.
        case graceful
        /// Destroy the handle at once without leaving the group (crash simulation).
        case abandon
    }

    private struct State {
        var stop: Stop?
        var finished = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())

    private init() {}

    /// Starts `body` on a new thread; the thread ends when `body` returns.
    static func start(name: String, _ body: @escaping @Sendable (PollThread) -> Void) -> PollThread {
        let poller = PollThread()
        let thread = Thread {
            body(poller)
            poller.markFinished()
        }
        thread.name = name
        thread.start()
        return poller
    }

    /// The stop request, checked by the loop once per iteration.
    var stopRequest: Stop? { state.withLock { $0.stop } }

    /// Asks the loop to end. The first request wins, except that `abandon` overrides `graceful`.
    func requestStop(_ stop: Stop) {
        state.withLock { state in
            if state.stop == nil || stop == .abandon { state.stop = stop }
        }
    }

    var isFinished: Bool { state.withLock { $0.finished } }

    /// Returns once the loop (including its flush or close) has ended.
    func waitUntilFinished() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let done = state.withLock { state in
                if state.finished { return true }
                state.waiters.append(continuation)
                return false
            }
            if done { continuation.resume() }
        }
    }

    private func markFinished() {
        let waiters = state.withLock { state in
            state.finished = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }
}
