/// When a connection must have delivered what: a request's head within the header timeout
/// of its first byte (or of the connection opening), its body within the body timeout of the
/// head. A pure state machine: ``RequestDeadlineHandler`` performs the actions it returns.
///
/// Between requests (a response written, nothing of the next one read yet) no deadline runs:
/// keep-alive idleness is Hummingbird's idle timeout.
struct RequestDeadlines: Sendable, Equatable {
    enum Phase: Sendable, Equatable {
        /// Connection open, or a response done: nothing of a request read yet.
        case idle
        /// Bytes of a request arrived, its head is not complete.
        case awaitingHead
        /// The head is in, the body is not.
        case readingBody
        /// The request is in; the server is answering.
        case responding
    }

    enum Deadline: String, Sendable, Equatable {
        case header, body
    }

    enum Action: Sendable, Equatable {
        case none
        /// Start the deadline (replacing any running one).
        case arm(Deadline)
        /// Stop the running deadline.
        case disarm
        /// The deadline that ran out: close the connection.
        case close(Deadline)
    }

    private(set) var phase = Phase.idle
    private(set) var armed: Deadline?

    /// The connection opened: a client that sends nothing is a slowloris too.
    mutating func opened() -> Action {
        guard phase == .idle else { return .none }
        phase = .awaitingHead
        return arm(.header)
    }

    /// Raw bytes arrived (before the HTTP decoder sees a whole head).
    mutating func bytesArrived() -> Action {
        guard phase == .idle else { return .none }
        phase = .awaitingHead
        return arm(.header)
    }

    mutating func headReceived() -> Action {
        phase = .readingBody
        return arm(.body)
    }

    mutating func endReceived() -> Action {
        phase = .responding
        return disarm()
    }

    mutating func responseEnded() -> Action {
        guard phase == .responding else { return .none }
        phase = .idle
        return .none
    }

    /// A deadline fired: close if it is still the one that runs (a late timer of a deadline
    /// since disarmed is ignored).
    mutating func fired(_ deadline: Deadline) -> Action {
        guard armed == deadline else { return .none }
        armed = nil
        return .close(deadline)
    }

    private mutating func arm(_ deadline: Deadline) -> Action {
        armed = deadline
        return .arm(deadline)
    }

    private mutating func disarm() -> Action {
        guard armed != nil else { return .none }
        armed = nil
        return .disarm
    }
}
