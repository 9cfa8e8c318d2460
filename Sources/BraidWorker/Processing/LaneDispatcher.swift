/// Runs work concurrently across lanes and strictly in order within a lane: at most `limit`
/// items are processed at once, and at most `readAhead` are taken from the input and not
/// yet finished.
///
/// The worker's lanes are Kafka partitions: requests for one cache key share a partition
/// (the key is the message key), so per-lane order is per-key order, while different
/// partitions proceed in parallel. The two bounds are separate because the input arrives in
/// runs of one partition (a fetch returns one partition's messages together): if queued
/// items counted against the processing limit, one partition's run would hold every permit
/// and the others would wait behind it. Because the input is not read while `readAhead`
/// items are unfinished, a slow Redis or source slows consumption instead of growing a
/// buffer.
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
    func run<Items: AsyncSequence & Sendable>(
        _ items: Items,
        lane: @escaping @Sendable (Items.Element) -> Int,
        handle: @escaping @Sendable (Items.Element) async -> Void
    ) async throws where Items.Element: Sendable {
        let unfinished = AsyncSemaphore(permits: readAhead)
        let processing = AsyncSemaphore(permits: limit)
        try await withThrowingTaskGroup(of: Void.self) { group in
            var lanes: [Int: AsyncStream<Items.Element>.Continuation] = [:]
            defer { for continuation in lanes.values { continuation.finish() } }
            var iterator = items.makeAsyncIterator()
            // Room first, then the next item: nothing is taken that cannot be queued.
            while true {
                await unfinished.acquire()
                guard let item = try await iterator.next() else {
                    await unfinished.release()
                    break
                }
                let key = lane(item)
                if lanes[key] == nil {
                    let (stream, continuation) = AsyncStream.makeStream(of: Items.Element.self)
                    lanes[key] = continuation
                    group.addTask {
                        for await queued in stream {
                            await processing.acquire()
                            await handle(queued)
                            await processing.release()
                            await unfinished.release()
                        }
                    }
                }
                lanes[key]?.yield(item)
            }
            for continuation in lanes.values { continuation.finish() }
            try await group.waitForAll()
        }
    }
}
