import Synchronization

/// Runs work concurrently across lanes and strictly in order within a lane: `limit` tasks
/// process items, and at most `readAhead` items are taken from the input and not yet finished.
///
/// The worker's lanes are message keys within a partition (`worker.ordering: key`: per-key
/// order is all correctness needs, and different keys of one hot partition proceed in
/// parallel) or whole partitions (`partition`). Queued items hold no processing slot, so a run
/// of one lane's items (a fetch returns one partition's messages together) never keeps the
/// other lanes waiting. Because the input is not read while `readAhead` items are unfinished,
/// a slow Redis or source slows consumption instead of growing a buffer.
struct LaneDispatcher: Sendable {
    let limit: Int
    let readAhead: Int

    init(limit: Int, readAhead: Int? = nil) {
        precondition(limit > 0, "the concurrency limit must be positive")
        self.limit = limit
        self.readAhead = max(limit, readAhead ?? limit * 128)
    }

    /// Dispatches every item of `items` to `handle`, returning once the input has ended and
    /// every dispatched item has been handled.
    func run<Items: AsyncSequence & Sendable, Lane: Hashable & Sendable>(
        _ items: Items,
        lane: @escaping @Sendable (Items.Element) -> Lane,
        handle: @escaping @Sendable (Items.Element) async -> Void
    ) async throws where Items.Element: Sendable {
        let board = DispatchBoard<Lane, Items.Element>(readAhead: readAhead)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<limit {
                group.addTask {
                    while let (lane, item) = await board.nextWork() {
                        await handle(item)
                        board.finish(lane)
                    }
                }
            }
            do {
                var iterator = items.makeAsyncIterator()
                // Room first, then the next item: nothing is taken that cannot be queued.
                while true {
                    await board.waitForRoom()
                    guard let item = try await iterator.next() else { break }
                    board.enqueue(item, lane: lane(item))
                }
            } catch {
                board.close()
                try await group.waitForAll()
                throw error
            }
            board.close()
            try await group.waitForAll()
        }
    }
}

/// ``LaneQueues`` behind a lock, with the tasks waiting on it: idle processing tasks wait for
/// a ready lane, the reader waits for room under `readAhead`.
private final class DispatchBoard<Lane: Hashable & Sendable, Item: Sendable>: Sendable {
    typealias Work = (lane: Lane, item: Item)

    private struct State {
        var queues = LaneQueues<Lane, Item>()
        var idle: [CheckedContinuation<Work?, Never>] = []
        var reader: CheckedContinuation<Void, Never>?
        var closed = false
    }

    private let state = Mutex(State())
    private let readAhead: Int

    init(readAhead: Int) {
        self.readAhead = readAhead
    }

    /// The next item to process, or nil once the input is closed and everything finished.
    func nextWork() async -> Work? {
        await withCheckedContinuation { continuation in
            let ready: Work?? = state.withLock { state in
                if let work = state.queues.start() { return .some(work) }
                if state.closed, state.queues.unfinished == 0 { return .some(nil) }
                state.idle.append(continuation)
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    func enqueue(_ item: Item, lane: Lane) {
        let wake: (CheckedContinuation<Work?, Never>, Work)? = state.withLock { state in
            state.queues.enqueue(item, lane: lane)
            guard !state.idle.isEmpty, let work = state.queues.start() else { return nil }
            return (state.idle.removeFirst(), work)
        }
        if let (continuation, work) = wake { continuation.resume(returning: work) }
    }

    /// The item running in `lane` is done. The lane's next item, if any, is left for the
    /// calling task, which asks for work next.
    func finish(_ lane: Lane) {
        let (reader, ended): (CheckedContinuation<Void, Never>?, [CheckedContinuation<Work?, Never>]) = state.withLock { state in
            state.queues.finish(lane)
            var reader: CheckedContinuation<Void, Never>?
            if state.queues.unfinished < readAhead {
                reader = state.reader
                state.reader = nil
            }
            guard state.closed, state.queues.unfinished == 0 else { return (reader, []) }
            defer { state.idle = [] }
            return (reader, state.idle)
        }
        reader?.resume()
        for task in ended { task.resume(returning: nil) }
    }

    /// Returns once fewer than `readAhead` items are unfinished.
    func waitForRoom() async {
        await withCheckedContinuation { continuation in
            let room = state.withLock { state in
                guard state.queues.unfinished >= readAhead else { return true }
                state.reader = continuation
                return false
            }
            if room { continuation.resume() }
        }
    }

    /// The input has ended: tasks stop once everything queued is finished.
    func close() {
        let ended = state.withLock { state in
            state.closed = true
            guard state.queues.unfinished == 0 else { return [CheckedContinuation<Work?, Never>]() }
            defer { state.idle = [] }
            return state.idle
        }
        for task in ended { task.resume(returning: nil) }
    }
}
