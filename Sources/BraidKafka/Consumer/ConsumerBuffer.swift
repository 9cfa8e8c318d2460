import DequeModule
import Dispatch
import Foundation
import Synchronization

/// The consumer's state between its poll thread and the application: fetched messages not
/// yet handed out, waiting iterators, and per partition the handed-out messages with the
/// offset that may be committed (``OffsetTracker``).
///
/// Messages are handed out round-robin across partitions, in offset order within each,
/// except from partitions the application paused or that hold `maxReadAheadPerPartition`
/// uncommitted messages. Fetching is paused (in librdkafka) for such partitions and for
/// everything while the application falls behind; ``fetchAction(stalled:)`` tells the poll
/// thread what to change. Pure state behind one lock; methods return what the caller must do
/// in librdkafka.
package final class ConsumerBuffer: Sendable {
    /// Partitions whose fetching the poll thread must pause and resume.
    package struct FetchAction: Equatable, Sendable {
        package var pause: [TopicPartition] = []
        package var resume: [TopicPartition] = []
        package static let none = FetchAction()

        package init(pause: [TopicPartition] = [], resume: [TopicPartition] = []) {
            self.pause = pause
            self.resume = resume
        }
    }

    /// One assigned partition.
    private struct Slot {
        let partition: TopicPartition
        let generation: Int
        var queue = Deque<KafkaConsumerMessage>()
        var offsets = OffsetTracker()
        /// Being revoked: nothing more is handed out, handed-out work is finished or abandoned.
        var revoking = false
        /// Fetching paused because `queue` plus uncommitted messages reached the per-partition cap.
        var readAheadPaused = false

        var readAhead: Int { queue.count + offsets.pending }
    }

    private typealias Waiter = (id: Int, continuation: CheckedContinuation<KafkaConsumerMessage?, any Error>)
    /// A waiting iterator and the message to resume it with, once the lock is released.
    private typealias Resumption = (CheckedContinuation<KafkaConsumerMessage?, any Error>, KafkaConsumerMessage)

    private struct State {
        var slots: [Slot] = []
        var index: [TopicPartition: Int] = [:]
        /// Where the round-robin hand-out continues.
        var cursor = 0
        var buffered = 0
        var waiters: [Waiter] = []
        var nextWaiterID = 0
        var end: Result<Void, KafkaError>?
        /// Per partition, how many assignments ended; stamps handed-out messages so that a
        /// late store of a revoked assignment cannot count against the next one.
        var generations: [TopicPartition: Int] = [:]
        /// Paused by the application; kept across revocations, so a partition assigned again
        /// is paused again.
        var userPaused: Set<TopicPartition> = []
        /// What librdkafka has paused, as far as this buffer told it to.
        var fetchPaused: Set<TopicPartition> = []
        var backpressurePaused = false
        /// The poll thread sleeps in ``waitForSpace(seconds:)`` until the buffer is half empty.
        var pollerWaitingForSpace = false

        func mayHandOut(_ slot: Slot, cap: Int) -> Bool {
            !slot.queue.isEmpty && !slot.revoking && slot.offsets.pending < cap && !userPaused.contains(slot.partition)
        }

        /// The next message to hand out, round-robin across partitions; nil if none may go.
        mutating func take(cap: Int) -> KafkaConsumerMessage? {
            guard buffered > 0 else { return nil }
            let count = slots.count
            for step in 0..<count {
                let position = (cursor + step) % count
                guard mayHandOut(slots[position], cap: cap) else { continue }
                cursor = (position + 1) % count
                var message = slots[position].queue.removeFirst()
                buffered -= 1
                message.generation = slots[position].generation
                slots[position].offsets.handedOut(message.offset)
                return message
            }
            return nil
        }

        /// Hands messages to waiting iterators while both are there.
        mutating func serveWaiters(cap: Int) -> [Resumption] {
            var served: [Resumption] = []
            while !waiters.isEmpty, let message = take(cap: cap) {
                served.append((waiters.removeFirst().continuation, message))
            }
            return served
        }

        /// Whether taking a message just made room the sleeping poll thread waits for.
        mutating func takeWakeUp(capacity: Int) -> Bool {
            guard pollerWaitingForSpace, buffered < capacity / 2 else { return false }
            pollerWaitingForSpace = false
            return true
        }

        /// The slot of a handed-out message, if its assignment is still the current one.
        func slotIndex(of message: KafkaConsumerMessage) -> Int? {
            guard let position = index[message.topicPartition], slots[position].generation == message.generation else { return nil }
            return position
        }

        /// The slot of a handed-out message still in flight in the current assignment.
        func settleableSlot(of message: KafkaConsumerMessage) -> Int? {
            guard let slot = slotIndex(of: message), slots[slot].offsets.state(of: message.offset) == .inFlight else { return nil }
            return slot
        }

        mutating func reindex() {
            index = Dictionary(uniqueKeysWithValues: slots.enumerated().map { ($1.partition, $0) })
            cursor = slots.isEmpty ? 0 : cursor % slots.count
        }
    }

    private let state = Mutex(State())
    /// Held while a finished message's commit position is computed and stored, so positions
    /// reach librdkafka in order; a revocation takes it before committing.
    private let storing = Mutex(())
    private let space = DispatchSemaphore(value: 0)
    /// Broadcast whenever a handed-out message is settled, for a revocation waiting on them.
    private let done = NSCondition()
    /// Buffered messages at which fetching pauses; it resumes below half of this.
    package let capacity: Int
    /// Most messages of one partition fetched and not committed (buffered, in flight, or
    /// finished above an unfinished one): hand-out stops at it, fetching pauses at it and
    /// resumes below half of it. Bounds what one partition holds and what a crash redelivers.
    package let maxReadAheadPerPartition: Int

    package init(capacity: Int, maxReadAheadPerPartition: Int = .max) {
        self.capacity = max(capacity, 2)
        self.maxReadAheadPerPartition = max(maxReadAheadPerPartition, 2)
    }

    // MARK: application side

    /// The next message; `nil` once the consumer is closed or the calling task is cancelled.
    package func next() async throws -> KafkaConsumerMessage? {
        let cap = maxReadAheadPerPartition
        // Fast path without suspending: while the application keeps up, messages are waiting.
        let (ready, id, wakeUp): (Result<KafkaConsumerMessage?, KafkaError>?, Int, Bool) = state.withLock { state in
            if let message = state.take(cap: cap) {
                return (.success(message), 0, state.takeWakeUp(capacity: capacity))
            }
            if let end = state.end { return (end.map { nil }, 0, false) }
            defer { state.nextWaiterID += 1 }
            return (nil, state.nextWaiterID, false)
        }
        if wakeUp { space.signal() }
        if let ready { return try ready.get() }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let (ready, wakeUp): (Result<KafkaConsumerMessage?, any Error>?, Bool) = state.withLock { state in
                    if let message = state.take(cap: cap) { return (.success(message), state.takeWakeUp(capacity: capacity)) }
                    if let end = state.end { return (end.map { nil }.mapError { $0 }, false) }
                    if Task.isCancelled { return (.success(nil), false) }
                    state.waiters.append((id, continuation))
                    return (nil, false)
                }
                if wakeUp { space.signal() }
                if let ready { continuation.resume(with: ready) }
            }
        } onCancel: {
            let waiter = state.withLock { state in
                state.waiters.firstIndex { $0.id == id }.map { state.waiters.remove(at: $0).continuation }
            }
            waiter?.resume(returning: nil)
        }
    }

    /// What became of a finished message's offset.
    package enum Settlement: Equatable, Sendable {
        /// The partition's commit position advanced to this offset, and `store` stored it.
        case stored(Int64)
        /// Recorded; the commit position waits for a lower offset still unfinished.
        case pending
        /// Its assignment has ended (revoked): nothing to store; the next owner gets it again.
        case revoked
    }

    /// The application finished a handed-out message. When the partition's commit position
    /// (the lowest offset not finished) advances, `store` is called with it before anything
    /// else can be finished or committed: positions reach librdkafka in order, and a
    /// revocation commits only after the stores of everything it waited for.
    package func finished(_ message: KafkaConsumerMessage, store: (Int64) throws -> Void) throws -> Settlement {
        let (settlement, served): (Settlement, [Resumption]) = try storing.withLock { _ in
            let settled = state.withLock { state -> (position: Int64?, served: [Resumption])? in
                guard let slot = state.settleableSlot(of: message) else { return nil }
                let position = state.slots[slot].offsets.finished(message.offset)
                // Committing may have made room under the partition's cap.
                return (position, state.serveWaiters(cap: maxReadAheadPerPartition))
            }
            guard let settled else { return (.revoked, []) }
            guard let position = settled.position else { return (.pending, settled.served) }
            try store(position)
            return (.stored(position), settled.served)
        }
        settled(served)
        return settlement
    }

    /// The application gives a handed-out message up without finishing it: it no longer
    /// holds up a revocation, and the partition's commit position never passes it.
    package func abandoned(_ message: KafkaConsumerMessage) {
        let served: [Resumption] = state.withLock { state in
            guard let slot = state.settleableSlot(of: message) else { return [] }
            state.slots[slot].offsets.abandoned(message.offset)
            return state.serveWaiters(cap: maxReadAheadPerPartition)
        }
        settled(served)
    }

    private func settled(_ served: [Resumption]) {
        for (continuation, next) in served { continuation.resume(returning: next) }
        // Taking the lock orders this after a waiter's check: the broadcast cannot fall
        // between its check and its wait.
        done.lock()
        done.broadcast()
        done.unlock()
    }

    /// Whether a handed-out message still belongs to the current assignment of its partition
    /// and that partition is not being revoked: work on it can still be committed.
    package func isCurrent(_ message: KafkaConsumerMessage) -> Bool {
        state.withLock { state in state.slotIndex(of: message).map { !state.slots[$0].revoking } ?? false }
    }

    package var assignment: Set<TopicPartition> { state.withLock { Set($0.slots.map(\.partition)) } }
    package var bufferedCount: Int { state.withLock { $0.buffered } }

    /// The commit position of a partition (the lowest offset not finished), if one was reached.
    package func position(of partition: TopicPartition) -> Int64? {
        state.withLock { state in state.index[partition].flatMap { state.slots[$0].offsets.position } }
    }

    /// Stops handing out and fetching these partitions until ``userResume(_:)``, also across
    /// rebalances (a partition assigned again stays paused). Fetching changes on the poll
    /// thread's next round.
    package func userPause(_ partitions: [TopicPartition]) {
        state.withLock { $0.userPaused.formUnion(partitions) }
    }

    package func userResume(_ partitions: [TopicPartition]) {
        let cap = maxReadAheadPerPartition
        let served = state.withLock { state in
            state.userPaused.subtract(partitions)
            return state.serveWaiters(cap: cap)
        }
        for (continuation, message) in served { continuation.resume(returning: message) }
    }

    package var userPausedPartitions: Set<TopicPartition> { state.withLock { $0.userPaused } }

    // MARK: poll-thread side

    /// Adds fetched messages of assigned partitions, first to waiting iterators; empties `batch`.
    package func push(_ batch: inout [KafkaConsumerMessage]) {
        guard !batch.isEmpty else { return }
        let cap = maxReadAheadPerPartition
        let served = state.withLock { state in
            guard state.end == nil else { return [Resumption]() }
            var last: (partition: TopicPartition, slot: Int)?
            for message in batch {
                let slot: Int
                if let last, last.partition.partition == message.partition, last.partition.topic == message.topic {
                    slot = last.slot
                } else if let found = state.index[message.topicPartition] {
                    slot = found
                    last = (message.topicPartition, found)
                } else {
                    continue  // not assigned (any more)
                }
                guard !state.slots[slot].revoking else { continue }
                state.slots[slot].queue.append(message)
                state.buffered += 1
            }
            return state.serveWaiters(cap: cap)
        }
        batch.removeAll(keepingCapacity: true)
        for (continuation, message) in served { continuation.resume(returning: message) }
    }

    /// Sleeps while the buffer is full, until the application drained half of it or
    /// `seconds` passed. Returns whether there is room now. Poll thread only.
    ///
    /// Waiting (rather than pausing fetch at once) keeps librdkafka's prefetched messages:
    /// pausing discards them and resuming fetches them again, which would throttle a
    /// consumer that is only briefly behind.
    package func waitForSpace(seconds: Double) -> Bool {
        let full = state.withLock { state in
            state.pollerWaitingForSpace = state.buffered >= capacity
            return state.pollerWaitingForSpace
        }
        guard full else { return true }
        _ = space.wait(timeout: .now() + seconds)
        return state.withLock { state in
            state.pollerWaitingForSpace = false
            return state.buffered < capacity
        }
    }

    package var isFull: Bool { state.withLock { $0.buffered >= capacity } }

    /// What to pause and resume now. Everything pauses when the buffer stayed full
    /// (`stalled`: the application is not keeping up) until the application drained half of
    /// it; otherwise the partitions the application paused, and those at their read-ahead cap
    /// (until they are below half of it), are paused, and every other assigned one fetches.
    package func fetchAction(stalled: Bool) -> FetchAction {
        let cap = maxReadAheadPerPartition
        return state.withLock { state in
            if !state.backpressurePaused, stalled, state.buffered >= capacity, !state.slots.isEmpty {
                state.backpressurePaused = true
            } else if state.backpressurePaused, state.buffered < capacity / 2 {
                state.backpressurePaused = false
            }
            var desired: Set<TopicPartition> = []
            for position in state.slots.indices {
                let readAhead = state.slots[position].readAhead
                if readAhead >= cap {
                    state.slots[position].readAheadPaused = true
                } else if readAhead < cap / 2 {
                    state.slots[position].readAheadPaused = false
                }
                let slot = state.slots[position]
                if state.backpressurePaused || slot.readAheadPaused || state.userPaused.contains(slot.partition) {
                    desired.insert(slot.partition)
                }
            }
            let action = FetchAction(
                pause: desired.subtracting(state.fetchPaused).sorted { $0.description < $1.description },
                resume: state.fetchPaused.subtracting(desired).sorted { $0.description < $1.description })
            state.fetchPaused = desired
            return action
        }
    }

    package var isBackpressurePaused: Bool { state.withLock { $0.backpressurePaused } }

    /// Partitions were assigned; librdkafka fetches them unpaused, so the next
    /// ``fetchAction(stalled:)`` pauses again those the application had paused.
    package func assigned(_ partitions: [TopicPartition]) {
        state.withLock { state in
            for partition in partitions where state.index[partition] == nil {
                state.slots.append(Slot(partition: partition, generation: state.generations[partition, default: 0]))
            }
            state.fetchPaused.subtract(partitions)
            state.reindex()
        }
    }

    /// First step of a revocation: drops buffered messages of `partitions` (nobody has
    /// started on them; the next owner gets them again) and hands out nothing more of them.
    package func beginRevocation(of partitions: Set<TopicPartition>) {
        state.withLock { state in
            for partition in partitions {
                guard let position = state.index[partition] else { continue }
                state.buffered -= state.slots[position].queue.count
                state.slots[position].queue.removeAll()
                state.slots[position].revoking = true
            }
        }
    }

    /// Handed-out messages of `partitions` neither finished nor abandoned.
    package func inFlight(of partitions: Set<TopicPartition>) -> Int {
        state.withLock { state in
            partitions.reduce(0) { sum, partition in sum + (state.index[partition].map { state.slots[$0].offsets.inFlight } ?? 0) }
        }
    }

    /// Blocks until every handed-out message of `partitions` is settled or `deadline` passes;
    /// returns how many are still in flight. Poll thread only (it blocks the thread).
    package func waitUntilDone(of partitions: Set<TopicPartition>, until deadline: Date) -> Int {
        done.lock()
        // `wait(until:)` is false once the deadline has passed.
        while inFlight(of: partitions) > 0, done.wait(until: deadline) {}
        done.unlock()
        // A message counts as settled just before its position is stored: let stores under
        // way finish, so the commit that follows includes them.
        storing.withLock { _ in }
        return inFlight(of: partitions)
    }

    /// Last step of a revocation: the partitions are gone; late stores no longer count.
    package func revoked(_ partitions: Set<TopicPartition>) {
        state.withLock { state in
            for partition in partitions {
                guard let position = state.index[partition] else { continue }
                state.buffered -= state.slots[position].queue.count
                state.generations[partition, default: 0] += 1
            }
            state.slots.removeAll { partitions.contains($0.partition) }
            state.fetchPaused.subtract(partitions)
            state.reindex()
        }
    }

    /// Ends the sequence: buffered messages are dropped, waiting iterators get `nil` (or the error).
    package func finish(_ result: Result<Void, KafkaError> = .success(())) {
        let waiters = state.withLock { state in
            if state.end == nil { state.end = result }
            for position in state.slots.indices { state.slots[position].queue.removeAll() }
            state.buffered = 0
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.continuation.resume(with: result.map { nil }.mapError { $0 }) }
    }
}
