import CRdKafka

/// A failure of a Kafka operation, with a code applications can match on.
///
/// `code` says what Braid was doing; `librdkafkaCode`/`librdkafkaName` carry librdkafka's
/// own `rd_kafka_resp_err_t` when the failure came from there, so logs show both.
public struct KafkaError: Error, Sendable, CustomStringConvertible {
    /// What kind of operation failed. Extensible: new codes are new static members.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        public let name: String
        public init(_ name: String) { self.name = name }
        public var description: String { name }

        /// A configuration property is unknown or has an invalid value.
        public static let configuration = Code("configuration")
        /// The loaded librdkafka is too old (see ``LibrdkafkaVersion``).
        public static let unsupportedLibrary = Code("unsupportedLibrary")
        /// `rd_kafka_new` refused to create a client.
        public static let clientCreation = Code("clientCreation")
        /// librdkafka refused to enqueue a message (queue full, unknown topic, ...).
        public static let produce = Code("produce")
        /// The broker did not accept a message.
        public static let delivery = Code("delivery")
        /// An operation (or a message's `message.timeout.ms`) ran out of time.
        public static let timedOut = Code("timedOut")
        /// Consumer-side failures: subscribe, fetch, offset store.
        public static let consumer = Code("consumer")
        /// Committing offsets failed.
        public static let commit = Code("commit")
        /// An admin request (create topics, metadata, offsets) failed.
        public static let admin = Code("admin")
        /// The client is shut down or closing.
        public static let shutdown = Code("shutdown")
    }

    public var code: Code
    /// Human-readable detail.
    public var message: String
    /// librdkafka's `rd_kafka_resp_err_t`, when the failure came from librdkafka.
    public var librdkafkaCode: Int32?
    /// librdkafka's name for ``librdkafkaCode`` (`rd_kafka_err2name`), e.g. `_MSG_TIMED_OUT`.
    public var librdkafkaName: String?
    /// Retrying the same operation may succeed.
    public var isRetriable: Bool
    /// The client that raised this is unusable and must be recreated.
    public var isFatal: Bool
    public var file: String
    public var line: UInt

    public init(
        _ code: Code, _ message: String, librdkafkaCode: Int32? = nil, librdkafkaName: String? = nil,
        isRetriable: Bool = false, isFatal: Bool = false, file: String = #fileID, line: UInt = #line
    ) {
        self.code = code
        self.message = message
        self.librdkafkaCode = librdkafkaCode
        self.librdkafkaName = librdkafkaName
        self.isRetriable = isRetriable
        self.isFatal = isFatal
        self.file = file
        self.line = line
    }

    public var description: String {
        var text = "KafkaError.\(code): \(message)"
        if let librdkafkaName, let librdkafkaCode { text += " [\(librdkafkaName) (\(librdkafkaCode))]" }
        if isFatal { text += " (fatal)" } else if isRetriable { text += " (retriable)" }
        return text + " at \(file):\(line)"
    }
}

extension KafkaError {
    /// Wraps a librdkafka response code; timeouts get ``Code/timedOut`` whatever `code` says,
    /// so callers can match one code for "ran out of time".
    static func librdkafka(
        _ code: Code, _ err: rd_kafka_resp_err_t, context: String, isFatal: Bool = false,
        file: String = #fileID, line: UInt = #line
    ) -> KafkaError {
        let raw = err.rawValue
        return KafkaError(
            KafkaResponseCode.isTimeout(raw) ? .timedOut : code,
            "\(context): \(String(cString: rd_kafka_err2str(err)))",
            librdkafkaCode: raw, librdkafkaName: String(cString: rd_kafka_err2name(err)),
            isRetriable: KafkaResponseCode.isRetriable(raw), isFatal: isFatal || raw == RD_KAFKA_RESP_ERR__FATAL.rawValue,
            file: file, line: line)
    }

    /// Wraps (and destroys) an `rd_kafka_error_t`, whose own retriable/fatal flags win.
    static func consuming(
        _ error: OpaquePointer, _ code: Code, context: String, file: String = #fileID, line: UInt = #line
    ) -> KafkaError {
        defer { rd_kafka_error_destroy(error) }
        let err = rd_kafka_error_code(error)
        var wrapped = librdkafka(code, err, context: context, file: file, line: line)
        wrapped.message = "\(context): \(String(cString: rd_kafka_error_string(error)))"
        wrapped.isRetriable = wrapped.isRetriable || rd_kafka_error_is_retriable(error) != 0
        wrapped.isFatal = rd_kafka_error_is_fatal(error) != 0
        return wrapped
    }
}
