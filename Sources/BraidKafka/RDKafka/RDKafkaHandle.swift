import CRdKafka
import Dispatch
import Foundation

/// The one owner of an `rd_kafka_t`.
///
/// Application threads reach the handle through ``withPointer(_:)``, which counts the call
/// as in use so the handle cannot be destroyed underneath it; the lock is held only to
/// check and count, never across the call, so a blocking call (a commit waiting for the
/// broker) on one thread never makes another wait (a message's offset store on the
/// cooperative pool). ``destroy(flags:)`` waits for calls in use to return. The client's poll
/// thread uses ``raw`` directly: it is the only thread that destroys the handle, so it cannot
/// race itself.
final class RDKafkaHandle: @unchecked Sendable {
    enum Kind { case producer, consumer }

    /// Valid until ``destroy(flags:)``; only for the poll thread (see the type's comment).
    let raw: OpaquePointer
    /// The object behind the configuration's opaque pointer; must outlive `raw`.
    private let context: CallbackContext?
    /// Guards the fields below; `destroy` waits on it for `callsInUse` to reach 0.
    private let condition = NSCondition()
    private var destroyed = false
    private var callsInUse = 0
    private var refusesNewWork = false
    private var topics: [String: OpaquePointer] = [:]

    /// Creates a client. `context`, when given, receives librdkafka's callbacks.
    init(_ kind: Kind, properties: [String: String], context: CallbackContext?) throws {
        do {
            try LibrdkafkaVersion.requireSupported()
        } catch {
            throw KafkaError(.unsupportedLibrary, error.description)
        }
        let conf = try RDKafkaConfig.make(properties)
        if let context {
            rd_kafka_conf_set_opaque(conf, Unmanaged.passUnretained(context).toOpaque())
            context.install(on: conf)
        }
        var errstr = [CChar](repeating: 0, count: 512)
        let type = kind == .producer ? RD_KAFKA_PRODUCER : RD_KAFKA_CONSUMER
        guard let handle = rd_kafka_new(type, conf, &errstr, errstr.count) else {
            rd_kafka_conf_destroy(conf)
            throw KafkaError(.clientCreation, "rd_kafka_new: \(String(errorBuffer: errstr))")
        }
        self.raw = handle
        self.context = context
    }

    /// Runs `body` with the live handle; throws ``KafkaError/Code/shutdown`` once destroyed.
    /// `body` may block (it runs without the lock); call blocking ones off the cooperative pool.
    func withPointer<T>(_ body: (OpaquePointer) throws -> T) throws -> T {
        condition.lock()
        guard !destroyed else {
            condition.unlock()
            throw KafkaError(.shutdown, "the Kafka client is shut down")
        }
        callsInUse += 1
        condition.unlock()
        defer {
            condition.lock()
            callsInUse -= 1
            if callsInUse == 0 { condition.broadcast() }
            condition.unlock()
        }
        return try body(raw)
    }

    /// Like ``withPointer(_:)`` with a cached topic handle, for producing. Fails once
    /// ``refuseNewWork()`` was called, so nothing is enqueued after a shutdown's flush began.
    /// Holds the lock during `body`, which must not block (producing only enqueues), so that
    /// ``refuseNewWork()`` returns only once no produce call is under way.
    func withTopic<T>(_ name: String, _ body: (OpaquePointer, OpaquePointer) throws -> T) throws -> T {
        condition.lock()
        defer { condition.unlock() }
        guard !destroyed, !refusesNewWork else { throw KafkaError(.shutdown, "the Kafka producer is shutting down") }
        let topic: OpaquePointer
        if let cached = topics[name] {
            topic = cached
        } else {
            guard let created = rd_kafka_topic_new(raw, name, nil) else {
                throw KafkaError.librdkafka(.produce, rd_kafka_last_error(), context: "topic \(name)")
            }
            topics[name] = created
            topic = created
        }
        return try body(raw, topic)
    }

    func refuseNewWork() {
        condition.lock()
        refusesNewWork = true
        condition.unlock()
    }

    /// Destroys the handle (blocking): waits for calls in use, then `rd_kafka_destroy_flags`.
    /// `flags` as for `rd_kafka_destroy_flags`.
    func destroy(flags: Int32 = 0) {
        condition.lock()
        guard !destroyed else {
            condition.unlock()
            return
        }
        destroyed = true
        while callsInUse > 0 { condition.wait() }
        let topics = Array(self.topics.values)
        self.topics = [:]
        condition.unlock()
        // Outside the lock: destroying may take a while and nobody can start using it now.
        topics.forEach { rd_kafka_topic_destroy($0) }
        rd_kafka_destroy_flags(raw, flags)
    }

    deinit {
        guard !destroyed else { return }
        // rd_kafka_destroy joins librdkafka's threads; never do that on whatever thread
        // happens to drop the last reference (it may be a cooperative-pool thread).
        // Safe to send: nothing else references the handle once its owner is gone.
        let raw = SendablePointer(self.raw)
        let topics = self.topics.values.map(SendablePointer.init)
        let context = self.context
        BlockingCalls.queue.async {
            topics.forEach { rd_kafka_topic_destroy($0.pointer) }
            rd_kafka_destroy(raw.pointer)
            withExtendedLifetime(context) {}
        }
    }
}
