import CRdKafka

extension RDKafkaHandle {
    /// Enqueues one message with `rd_kafka_produceva` (the array form of the variadic
    /// `rd_kafka_producev`, which Swift cannot call). librdkafka copies key, value and headers.
    ///
    /// - Parameter opaque: the per-message id that comes back with its delivery report.
    func produce(_ message: KafkaProducerMessage, opaque: UInt) throws {
        try withTopic(message.topic) { rk, topic in
            var headers: OpaquePointer?
            if !message.headers.isEmpty {
                let list = rd_kafka_headers_new(message.headers.count)!
                for header in message.headers {
                    header.value.withUnsafeBytes { value in
                        _ = rd_kafka_header_add(list, header.name, -1, value.baseAddress, value.count)
                    }
                }
                headers = list
            }
            let error = message.value.withUnsafeBytes { value in
                Self.withOptionalBytes(message.key) { key in
                    withUnsafeTemporaryAllocation(of: rd_kafka_vu_t.self, capacity: 7) { arguments in
                        var count = 0
                        func add(_ type: rd_kafka_vtype_t, _ fill: (inout rd_kafka_vu_t) -> Void) {
                            var argument = rd_kafka_vu_t()
                            argument.vtype = type
                            fill(&argument)
                            arguments.initializeElement(at: count, to: argument)
                            count += 1
                        }
                        add(RD_KAFKA_VTYPE_RKT) { $0.u.rkt = topic }
                        add(RD_KAFKA_VTYPE_PARTITION) { $0.u.i32 = message.partition ?? RD_KAFKA_PARTITION_UA }
                        add(RD_KAFKA_VTYPE_MSGFLAGS) { $0.u.i = RD_KAFKA_MSG_F_COPY }
                        add(RD_KAFKA_VTYPE_VALUE) {
                            $0.u.mem.ptr = UnsafeMutableRawPointer(mutating: value.baseAddress)
                            $0.u.mem.size = value.count
                        }
                        if let key {
                            add(RD_KAFKA_VTYPE_KEY) {
                                $0.u.mem.ptr = UnsafeMutableRawPointer(mutating: key.baseAddress)
                                $0.u.mem.size = key.count
                            }
                        }
                        if let headers { add(RD_KAFKA_VTYPE_HEADERS) { $0.u.headers = headers } }
                        add(RD_KAFKA_VTYPE_OPAQUE) { $0.u.ptr = UnsafeMutableRawPointer(bitPattern: opaque) }
                        return rd_kafka_produceva(rk, arguments.baseAddress, count)
                    }
                }
            }
            if let error {
                // librdkafka owns the headers only when the message was accepted.
                if let headers { rd_kafka_headers_destroy(headers) }
                throw KafkaError.consuming(error, .produce, context: "enqueueing a message to \(message.topic)")
            }
        }
    }

    private static func withOptionalBytes<T>(_ bytes: [UInt8]?, _ body: (UnsafeRawBufferPointer?) -> T) -> T {
        guard let bytes else { return body(nil) }
        return bytes.withUnsafeBytes { body($0) }
    }
}
