import BraidExperiments
import Foundation
import Synchronization

/// Solves the layout experiments' sequential designs (``LayoutExperimentDesign/sequential``:
/// seconds of one core) once, on a thread of its own, from when it is made: a gateway serves
/// pages meanwhile, and the cooperative pool never computes them. Reading an outcome before
/// then waits for it.
public final class LayoutDesignSolver: Sendable {
    private struct State {
        var solved = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())

    public init(_ designs: [LayoutExperimentDesign]) {
        guard !designs.isEmpty else {
            state.withLock { $0.solved = true }
            return
        }
        Thread.detachNewThread { [self] in
            for design in designs { _ = design.sequential }
            let waiters = state.withLock { state in
                state.solved = true
                return state.waiters
            }
            for waiter in waiters { waiter.resume() }
        }
    }

    public var isSolved: Bool { state.withLock { $0.solved } }

    /// Returns once every design is solved.
    public func solved() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = state.withLock { state in
                if state.solved { return true }
                state.waiters.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }
}
