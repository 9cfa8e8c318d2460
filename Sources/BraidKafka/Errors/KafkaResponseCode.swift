/// Classification of librdkafka's `rd_kafka_resp_err_t` values, kept as plain numbers so it
/// is pure and testable. Plain response codes carry no retriable flag (only `rd_kafka_error_t`
/// does), so the transient ones are listed here, from rdkafka.h.
enum KafkaResponseCode {
    static let messageTimedOut: Int32 = -192   // _MSG_TIMED_OUT
    static let timedOut: Int32 = -185          // _TIMED_OUT
    static let queueFull: Int32 = -184         // _QUEUE_FULL
    static let requestTimedOut: Int32 = 7      // REQUEST_TIMED_OUT

    /// Local and broker codes after which the same request may succeed.
    static let retriable: Set<Int32> = [
        -195,  // _TRANSPORT
        -192,  // _MSG_TIMED_OUT
        -187,  // _ALL_BROKERS_DOWN
        -185,  // _TIMED_OUT
        -184,  // _QUEUE_FULL
        -180,  // _WAIT_COORD
        -166,  // _TIMED_OUT_QUEUE
        3,  // UNKNOWN_TOPIC_OR_PART (metadata may not have propagated yet)
        5,  // LEADER_NOT_AVAILABLE
        6,  // NOT_LEADER_FOR_PARTITION
        7,  // REQUEST_TIMED_OUT
        13,  // NETWORK_EXCEPTION
        14,  // COORDINATOR_LOAD_IN_PROGRESS
        15,  // COORDINATOR_NOT_AVAILABLE
        16,  // NOT_COORDINATOR
        19,  // NOT_ENOUGH_REPLICAS
        20,  // NOT_ENOUGH_REPLICAS_AFTER_APPEND
        27,  // REBALANCE_IN_PROGRESS
    ]

    static func isRetriable(_ code: Int32) -> Bool { retriable.contains(code) }

    static func isTimeout(_ code: Int32) -> Bool {
        code == messageTimedOut || code == timedOut || code == requestTimedOut || code == -166
    }
}
