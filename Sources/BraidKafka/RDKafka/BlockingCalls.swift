import Dispatch

/// Runs blocking librdkafka calls (commit, metadata, admin requests, destroy) off Swift's
/// cooperative pool, which has only as many threads as cores and must never wait on I/O.
enum BlockingCalls {
    static let queue = DispatchQueue(label: "braid.kafka.blocking", attributes: .concurrent)

    static func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async { continuation.resume(with: Result { try body() }) }
        }
    }
}
