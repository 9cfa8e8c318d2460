/// A counting semaphore for tasks: `acquire` suspends (never blocks a thread) until a
/// permit is free. Waiters are served in arrival order.
actor AsyncSemaphore {
    private var permits: Int
    private var waiters: [CheckedContinuation<Void, Never>] = []

    init(permits: Int) {
        precondition(permits > 0, "a semaphore needs at least one permit")
        self.permits = permits
    }

    func acquire() async {
        if permits > 0 {
            permits -= 1
            return
        }
        await withCheckedContinuation { waiters.append($0) }
    }

    func release() {
        if waiters.isEmpty {
            permits += 1
        } else {
            // Hand the permit straight to the oldest waiter.
            waiters.removeFirst().resume()
        }
    }
}
