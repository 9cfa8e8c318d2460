import CRdKafka

/// Builds an `rd_kafka_conf_t` from string properties. Errors name the property, never its
/// value: a mistyped `sasl.passwrod` holds a password all the same, and the message reaches
/// logs and the console's workers page.
///
/// The caller owns the result until it hands it to `rd_kafka_new`, which takes ownership on
/// success only.
enum RDKafkaConfig {
    /// - Throws: ``KafkaError/Code/configuration`` naming the first unknown or invalid key.
    static func make(_ properties: [String: String]) throws -> OpaquePointer {
        let conf = rd_kafka_conf_new()!
        // Sorted, so the error for several bad keys is deterministic.
        for (key, value) in properties.sorted(by: { $0.key < $1.key }) {
            var errstr = [CChar](repeating: 0, count: 512)
            let result = rd_kafka_conf_set(conf, key, value, &errstr, errstr.count)
            guard result == RD_KAFKA_CONF_OK else {
                rd_kafka_conf_destroy(conf)
                let kind = result == RD_KAFKA_CONF_UNKNOWN ? "unknown" : "invalid"
                throw KafkaError(.configuration, "\(kind) librdkafka property '\(key)': \(redacting(value, in: String(errorBuffer: errstr)))")
            }
        }
        return conf
    }

    /// librdkafka quotes the refused value in some reasons (`Invalid value "…" for …`).
    static func redacting(_ value: String, in reason: String) -> String {
        value.isEmpty ? reason : reason.replacing(value, with: "***")
    }
}
