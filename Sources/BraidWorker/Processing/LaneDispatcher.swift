/// Runs work concurrently across lanes and strictly in order within a lane, with at most
/// `limit` items in flight in total.
///
/// The worker's lanes are Kafka partitions: requests for one cache key share a partition
/// (the key is the message key), so per-lane order is per-key order, while different
/// partitions proceed in parallel. Because the input is not read while `limit` items are
/// in flight, a slow Redis or source slows consumption instead of growing a buffer.
struct LaneDispatcher: Sendable {
    let limit: Int

    init(limit: Int) {
        precondition(limit > 0, "the concurrency limit must be positive")
        self.limit = limit
    }

    /// Dispatches every item of `items` to `handle`, returning once the input has ended and
    /// every dispatched item has been handled.
    func run<Items: AsyncSequence & Sendable>(
        _ items: Items,
        lane: @escaping @Sendable (Items.Element) -> Int,
        handle: @escaping @Sendable (Items.Element) async -> Void
    ) async throws where Items.Element: Sendable {
        let permits = AsyncSemaphore(permits: limit)
        try await withThrowingTaskGroup(of: Void.self) { group in
            var lanes: [Int: AsyncStream<Items.Element>.Continuation] = [:]
            defer { for continuation in lanes.values { continuation.finish() } }
            for try await item in items {
                await permits.acquire()
                let key = lane(item)
                if lanes[key] == nil {
                    let (stream, continuation) = AsyncStream.makeStream(of: Items.Element.self)
                    lanes[key] = continuation
                    group.addTask {
                        for await queued in stream {
                            await handle(queued)
                            await permits.release()
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
