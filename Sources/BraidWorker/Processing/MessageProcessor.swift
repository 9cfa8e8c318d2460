import BraidPrecompute

/// Turns one Kafka message value into its effect in Redis. Knows nothing of Kafka, so each
/// kind of message is tested on its own; ``PrecomputeWorker`` does the consuming.
public protocol MessageProcessor: Sendable {
    /// - Returns: what the message was (a metric label) and whether it changed anything.
    /// - Throws: ``ProcessingFailure``, classified for retrying or dead-lettering.
    func process(_ value: [UInt8]) async throws(ProcessingFailure) -> (kind: String, outcome: MaterializeOutcome)

    /// Whether `dependency` answers right now, by a cheap request of its own; nil when this
    /// processor cannot check it (its failures then never pause the worker).
    func probe(_ dependency: ProcessingFailure.Dependency) async -> Bool?

    /// The name of the span of one processing attempt (tracing on).
    var spanName: String { get }
}

extension MessageProcessor {
    public func probe(_ dependency: ProcessingFailure.Dependency) async -> Bool? { nil }
    public var spanName: String { "process" }
}
