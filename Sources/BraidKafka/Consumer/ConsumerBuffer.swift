import Dispatch
import DequeModule
import Foundation
import Synchronization

/// The consumer's state between its poll thread and the application: fetched messages not
/// yet handed out (bounded by pausing fetch), waiting iterators, and per-partition counts of
/// handed-out messages whose offsets are not stored yet (the work a revocation waits for).
///
/// Pure state behind one lock; methods return what the caller must do in librdkafka.
package final class ConsumerBuffer: Sendable {
    /// A change to fetching the poll thread must apply.
    package enum FetchAction: Equatable {
        case none
        case pause([TopicPartition])
        case resume([TopicPartition])
    }

    private struct State {
        var messages = Deque<KafkaConsumerMessage>()
        var waiters: [(id: Int, continuation: CheckedContinuation<KafkaConsumerMessage?, any Error>)] = []
        var nextWaiterID = 0
        var end: Result<Void, KafkaError>?
        var inFlight: [TopicPartition: Int] = [:]
        var generations: [TopicPartition: Int] = [:]
        var assignment: Set<TopicPartition> = []
        var userPaused: Set<TopicPartition> = []
        var backpressurePaused = false
        /// The poll thread sleeps in ``waitForSpace(seconds:)`` until the buffer is half empty.
        var pollerWaitingForSpace = false

        /// Whether taking a message just made room the sleeping poll thread waits for.
        mutating func takeWakeUp(capacity: Int) -> Bool {
            guard pollerWaitingForSpace, messages.count < capacity / 2 else { return false }
            pollerWaitingForSpace = false
            return true
        }

        /// Marks a message as handed to the application.
        mutating func handOut(_ message: KafkaConsumerMessage) -> KafkaConsumerMessage {
            var stamped = message
            let partition = message.topicPartition
            stamped.generation = generations[partition, default: 0]
            inFlight[partition, default: 0] += 1
            return stamped
        }
    }

    private let state = Mutex(State())
    private let space = DispatchSemaphore(value: 0)
    /// Broadcast whenever a handed-out message is done, for a revocation waiting on them.
    private let done = NSCondition()
    /// Buffered messages at which fetching pauses; it resumes below half of this.
    package let capacity: Int

    package init(capacity: Int) {
        self.capacity = max(capacity, 2)
    }

    // MARK: application side

    /// The next message; `nil` once the consumer is closed or the calling task is cancelled.
    package func next() async throws -> KafkaConsumerMessage? {
        // Fast path without suspending: while the application keeps up, messages are waiting.
        let (ready, id, wakeUp): (Result<KafkaConsumerMessage?, KafkaError>?, Int, Bool) = state.withLock { state in
            if let message = state.messages.popFirst() {
                return (.success(state.handOut(message)), 0, state.takeWakeUp(capacity: capacity))
            }
            if let end = state.end { return (end.map { nil }, 0, false) }
            defer { state.nextWaiterID += 1 }
            return (nil, state.nextWaiterID, false)
        }
        if wakeUp { space.signal() }
        if let ready { return try ready.get() }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let ready: Result<KafkaConsumerMessage?, any Error>? = state.withLock { state in
                    if let message = state.messages.popFirst() { return .success(state.handOut(message)) }
                    if let end = state.end { return end.map { nil }.mapError { $0 } }
                    if Task.isCancelled { return .success(nil) }
                    state.waiters.append((id, continuation))
                    return nil
                }
                if let ready { continuation.resume(with: ready) }
            }
        } onCancel: {
            let waiter = state.withLock { state in
                state.waiters.firstIndex { $0.id == id }.map { state.waiters.remove(at: $0).continuation }
            }
            waiter?.resume(returning: nil)
        }
    }

    /// The application finished a handed-out message (its offset was stored).
    package func markDone(_ message: KafkaConsumerMessage) {
        let counted = state.withLock { state in
            let partition = message.topicPartition
            guard state.generations[partition, default: 0] == message.generation,
                let count = state.inFlight[partition], count > 0
            else { return false }
            state.inFlight[partition] = count - 1
            return true
        }
        guard counted else { return }
        // Taking the lock orders this after a waiter's check: the broadcast cannot fall
        // between its check and its wait.
        done.lock()
        done.broadcast()
        done.unlock()
    }

    package var assignment: Set<TopicPartition> { state.withLock { $0.assignment } }
    package var bufferedCount: Int { state.withLock { $0.messages.count } }

    /// Records a pause requested by the application; returns the partitions to resume now
    /// for ``userResume(_:)`` (none while fetching is paused for backpressure).
    package func userPause(_ partitions: [TopicPartition]) {
        state.withLock { $0.userPaused.formUnion(partitions) }
    }

    package func userResume(_ partitions: [TopicPartition]) -> [TopicPartition] {
        state.withLock { state in
            state.userPaused.subtract(partitions)
            return state.backpressurePaused ? [] : partitions
        }
    }

    // MARK: poll-thread side

    /// Adds fetched messages, first to waiting iterators; empties `batch`.
    package func push(_ batch: inout [KafkaConsumerMessage]) {
        guard !batch.isEmpty else { return }
        var resumptions: [(CheckedContinuation<KafkaConsumerMessage?, any Error>, KafkaConsumerMessage)] = []
        state.withLock { state in
            guard state.end == nil else { return }
            var index = 0
            while index < batch.count, !state.waiters.isEmpty {
                resumptions.append((state.waiters.removeFirst().continuation, state.handOut(batch[index])))
                index += 1
            }
            state.messages.append(contentsOf: batch[index...])
        }
        batch.removeAll(keepingCapacity: true)
        for (continuation, message) in resumptions { continuation.resume(returning: message) }
    }

    /// Sleeps while the buffer is full, until the application drained half of it or
    /// `seconds` passed. Returns whether there is room now. Poll thread only.
    ///
    /// Waiting (rather than pausing fetch at once) keeps librdkafka's prefetched messages:
    /// pausing discards them and resuming fetches them again, which would throttle a
    /// consumer that is only briefly behind.
    package func waitForSpace(seconds: Double) -> Bool {
        let full = state.withLock { state in
            state.pollerWaitingForSpace = state.messages.count >= capacity
            return state.pollerWaitingForSpace
        }
        guard full else { return true }
        _ = space.wait(timeout: .now() + seconds)
        return state.withLock { state in
            state.pollerWaitingForSpace = false
            return state.messages.count < capacity
        }
    }

    package var isFull: Bool { state.withLock { $0.messages.count >= capacity } }

    /// Pause when the buffer stayed full (`stalled`: the application is not keeping up),
    /// resume once the application drained half of it.
    package func fetchAction(stalled: Bool) -> FetchAction {
        state.withLock { state in
            if !state.backpressurePaused, stalled, state.messages.count >= capacity, !state.assignment.isEmpty {
                state.backpressurePaused = true
                return .pause(state.assignment.sorted { $0.description < $1.description })
            }
            if state.backpressurePaused, state.messages.count < capacity / 2 {
                state.backpressurePaused = false
                let resumable = state.assignment.subtracting(state.userPaused)
                return resumable.isEmpty ? .none : .resume(resumable.sorted { $0.description < $1.description })
            }
            return .none
        }
    }

    package var isBackpressurePaused: Bool { state.withLock { $0.backpressurePaused } }

    /// Partitions were assigned (fetching of new partitions starts unpaused).
    package func assigned(_ partitions: [TopicPartition]) {
        state.withLock { state in
            state.assignment.formUnion(partitions)
            state.backpressurePaused = false
        }
    }

    /// First step of a revocation: drops buffered messages of `partitions` (nobody has
    /// started on them; the next owner gets them again).
    package func dropBuffered(of partitions: Set<TopicPartition>) {
        state.withLock { state in
            state.messages.removeAll { partitions.contains($0.topicPartition) }
        }
    }

    /// Handed-out messages of `partitions` whose offsets are not stored yet.
    package func inFlight(of partitions: Set<TopicPartition>) -> Int {
        state.withLock { state in partitions.reduce(0) { $0 + state.inFlight[$1, default: 0] } }
    }

    /// Blocks until every handed-out message of `partitions` is done or `deadline` passes;
    /// returns how many are still unfinished. Poll thread only (it blocks the thread).
    package func waitUntilDone(of partitions: Set<TopicPartition>, until deadline: Date) -> Int {
        done.lock()
        defer { done.unlock() }
        var unfinished = inFlight(of: partitions)
        // `wait(until:)` is false once the deadline has passed.
        while unfinished > 0, done.wait(until: deadline) {
            unfinished = inFlight(of: partitions)
        }
        return inFlight(of: partitions)
    }

    /// Last step of a revocation: the partitions are gone; late stores no longer count.
    package func revoked(_ partitions: Set<TopicPartition>) {
        state.withLock { state in
            state.assignment.subtract(partitions)
            for partition in partitions {
                state.inFlight[partition] = nil
                state.generations[partition, default: 0] += 1
            }
        }
    }

    /// Ends the sequence: buffered messages are dropped, waiting iterators get `nil` (or the error).
    package func finish(_ result: Result<Void, KafkaError> = .success(())) {
        let waiters = state.withLock { state in
            if state.end == nil { state.end = result }
            state.messages.removeAll()
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.continuation.resume(with: result.map { nil }.mapError { $0 }) }
    }
}
