import Synchronization

/// Reports impressions and clicks to the gateway in the background: ``report(_:)`` only queues
/// (O(1), never blocking), and ``run()`` sends what is queued in batches, retrying with backoff
/// and the gateway's `Retry-After` until the gateway takes each event or refuses it.
///
/// Nothing is lost silently. The queue holds at most ``Configuration/capacity`` events; past
/// that the oldest are dropped and counted (``Statistics/dropped``). An event the gateway
/// refuses (a stale or forged impression id, a click on a position the page did not show) is
/// removed, counted (``Statistics/refused``) and the rest of its batch is sent again; a retry
/// that duplicates an event the gateway already took is harmless.
public final class EventReporter: EventReporting {
    public struct Configuration: Sendable {
        /// The most events held (queued or on their way); past it the oldest are dropped.
        public var capacity = 1_000
        /// Events per request (the gateway takes at most 100).
        public var batchSize = 100
        /// How long an event waits for a batch to fill before it is sent anyway.
        public var flushInterval: Duration = .seconds(2)
        /// The first retry's ceiling; it doubles per failure up to ``maximumBackoff``.
        public var initialBackoff: Duration = .milliseconds(500)
        public var maximumBackoff: Duration = .seconds(60)

        public init() {}
    }

    /// Counts since the reporter was made.
    public struct Statistics: Sendable, Hashable {
        /// Events the gateway took (a retried event that it had already taken counts again).
        public var sent = 0
        /// Events dropped because the queue was full.
        public var dropped = 0
        /// Events the gateway refused, with the last refusal.
        public var refused = 0
        public var lastRefusal: BraidClientError?
        /// Requests that failed and were retried, with the last failure.
        public var failedAttempts = 0
        public var lastFailure: BraidClientError?
        /// Events held now.
        public var held = 0
    }

    private struct State {
        var queue: EventQueue
        var statistics = Statistics()
        var flushWaiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
        var nextWaiter: UInt64 = 0
        var running = false

        mutating func resumeWaitersIfEmpty() {
            guard queue.isEmpty else { return }
            for waiter in flushWaiters.values { waiter.resume() }
            flushWaiters = [:]
        }
    }

    public let configuration: Configuration
    private let send: @Sendable ([BraidEvent]) async throws(BraidClientError) -> Void
    private let state: Mutex<State>
    private let wakeups: AsyncStream<Void>
    private let wake: AsyncStream<Void>.Continuation

    /// A reporter that sends through `client` (`POST /v1/events`).
    public convenience init(client: BraidClient, configuration: Configuration = Configuration()) {
        self.init(configuration: configuration) { events throws(BraidClientError) in try await client.send(events) }
    }

    /// A reporter that sends each batch through `send`, which throws the gateway's answer when
    /// it does not take the batch.
    public init(configuration: Configuration = Configuration(), send: @escaping @Sendable ([BraidEvent]) async throws(BraidClientError) -> Void) {
        precondition(configuration.capacity > 0, "capacity must be at least 1")
        precondition((1...100).contains(configuration.batchSize), "batchSize must be 1 to 100 (the gateway's limit)")
        self.configuration = configuration
        self.send = send
        self.state = Mutex(State(queue: EventQueue(capacity: configuration.capacity)))
        (wakeups, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    public func report(_ event: BraidEvent) {
        let full = state.withLock { state in
            state.queue.append(event)
            return state.queue.count >= configuration.batchSize
        }
        if full { wake.yield() }
    }

    public var statistics: Statistics {
        state.withLock { state in
            var statistics = state.statistics
            statistics.dropped = state.queue.dropped
            statistics.held = state.queue.count
            return statistics
        }
    }

    /// Sends queued events until the task is cancelled: a batch as soon as one is full,
    /// anything queued every ``Configuration/flushInterval``. On cancellation it makes one last
    /// attempt at what is held, without retrying. Run it once, for the app's lifetime (in a
    /// task of the app's, or a ServiceLifecycle service).
    public func run() async {
        let alreadyRunning = state.withLock { state in
            defer { state.running = true }
            return state.running
        }
        precondition(!alreadyRunning, "EventReporter.run() runs once at a time")
        await withTaskGroup(of: Void.self) { group in
            group.addTask { [wake, configuration] in
                while (try? await Task.sleep(for: configuration.flushInterval)) != nil { wake.yield() }
            }
            for await _ in wakeups {
                if Task.isCancelled { break }
                await deliver(retrying: true)
            }
            group.cancelAll()
        }
        // A new task, so that the cancellation that ended the loop does not cancel the request.
        await Task { await self.deliver(retrying: false) }.value
        state.withLock { $0.running = false }
    }

    /// Asks ``run()`` to send now and waits until nothing is held (sent, refused or dropped):
    /// before the app suspends, say. Only ``run()`` sends, so without it this waits until the
    /// calling task is cancelled, and returns then.
    public func flush() async {
        let id = state.withLock { state in
            defer { state.nextWaiter += 1 }
            return state.nextWaiter
        }
        wake.yield()
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                state.withLock { state in
                    if state.queue.isEmpty || Task.isCancelled {
                        continuation.resume()
                    } else {
                        state.flushWaiters[id] = continuation
                    }
                }
            }
        } onCancel: {
            state.withLock { state in state.flushWaiters.removeValue(forKey: id)?.resume() }
        }
    }

    /// Sends batches until nothing is held; with `retrying`, waits out failures with backoff
    /// (returning when cancelled), otherwise returns at the first failure.
    private func deliver(retrying: Bool) async {
        var backoff = Backoff(initial: configuration.initialBackoff, maximum: configuration.maximumBackoff)
        var limit = configuration.batchSize
        while let batch = state.withLock({ $0.queue.batch(limit: limit) }) {
            do throws(BraidClientError) {
                try await send(batch.events)
                backoff.reset()
                state.withLock { state in
                    state.queue.acknowledge(batch)
                    state.statistics.sent += batch.events.count
                    state.resumeWaitersIfEmpty()
                }
            } catch {
                if let index = error.refusedEventIndex, batch.sequences.indices.contains(index) {
                    refuse(batch.sequences[index], error)
                } else if error.status == 413, limit > 1 {
                    limit = max(1, limit / 2)
                } else if !error.isRetryable && error.status != 401 {
                    // A refusal that names no event: sending the batch again would fail the same
                    // way forever, so it is refused as a whole.
                    for sequence in batch.sequences { refuse(sequence, error) }
                } else {
                    state.withLock { state in
                        state.statistics.failedAttempts += 1
                        state.statistics.lastFailure = error
                    }
                    guard retrying, (try? await Task.sleep(for: backoff.delay(retryAfter: error.retryAfter))) != nil else { return }
                }
            }
        }
    }

    private func refuse(_ sequence: UInt64, _ error: BraidClientError) {
        state.withLock { state in
            state.queue.remove(sequence: sequence)
            state.statistics.refused += 1
            state.statistics.lastRefusal = error
            state.resumeWaitersIfEmpty()
        }
    }
}

/// Records what the app reports, for the app's own tests: hand it where an
/// ``EventReporter`` would go, then check ``events``.
public final class EventRecorder: EventReporting {
    private let recorded = Mutex<[BraidEvent]>([])

    public init() {}

    public func report(_ event: BraidEvent) { recorded.withLock { $0.append(event) } }

    /// Everything reported, in order.
    public var events: [BraidEvent] { recorded.withLock { $0 } }

    /// The impression ids reported as impressions.
    public var impressions: [String] {
        events.compactMap { if case .impression(let id) = $0 { id } else { nil } }
    }

    /// The clicks reported, as (impression id, position).
    public var clicks: [(impressionID: String, position: Int)] {
        events.compactMap { if case .click(let id, let position) = $0 { (id, position) } else { nil } }
    }

    /// Forgets what was recorded.
    public func reset() { recorded.withLock { $0 = [] } }
}
