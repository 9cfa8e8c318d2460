/// Coalesces concurrent computations of the same key: the first caller runs the work, the
/// others await its result. Used for inline snapshot misses, so a burst of first requests
/// for one query costs one ranking computation, not a stampede.
public actor SingleFlight<Key: Hashable & Sendable, Value: Sendable> {
    private var inFlight: [Key: Task<Value, any Error>] = [:]
    /// Computations started, and callers that joined one already under way (for tests).
    private(set) var started = 0
    private(set) var joined = 0

    public init() {}

    /// The result of `work` for `key`, or of the computation of `key` already under way (its
    /// error too). The scope is this instance: one per gateway process.
    public func run(_ key: Key, _ work: @escaping @Sendable () async throws -> Value) async throws -> Value {
        if let existing = inFlight[key] {
            joined += 1
            return try await existing.value
        }
        started += 1
        let task = Task { try await work() }
        inFlight[key] = task
        defer { inFlight[key] = nil }
        return try await task.value
    }

    /// Keys being computed right now (for tests and metrics).
    public var pendingCount: Int { inFlight.count }
}
