import CRdKafka
import Logging

/// The object librdkafka's callbacks receive as their opaque pointer. Subclasses add the
/// producer's delivery reports and the consumer's rebalances; this base routes librdkafka's
/// logs, errors and statistics.
class CallbackContext: @unchecked Sendable {
    let logger: Logger
    let statistics: KafkaStatisticsRecorder?

    init(logger: Logger, statistics: KafkaStatisticsRecorder?) {
        self.logger = logger
        self.statistics = statistics
    }

    /// Registers the callbacks this context serves on a configuration about to be used.
    func install(on conf: OpaquePointer) {
        rd_kafka_conf_set_log_cb(conf, logCallback)
        rd_kafka_conf_set_error_cb(conf, errorCallback)
        if statistics != nil { rd_kafka_conf_set_stats_cb(conf, statisticsCallback) }
    }

    static func from(_ opaque: UnsafeMutableRawPointer?) -> Self? {
        guard let opaque else { return nil }
        return Unmanaged<CallbackContext>.fromOpaque(opaque).takeUnretainedValue() as? Self
    }
}

private func logCallback(_ rk: OpaquePointer?, _ level: Int32, _ facility: UnsafePointer<CChar>?, _ text: UnsafePointer<CChar>?) {
    guard let rk, let context = CallbackContext.from(rd_kafka_opaque(rk)) else { return }
    // syslog levels: 0-3 error, 4 warning, 5-6 info/notice, 7 debug.
    let logLevel: Logger.Level = level <= 3 ? .error : level == 4 ? .warning : level <= 6 ? .info : .debug
    context.logger.log(
        level: logLevel, "\(text.map { String(cString: $0) } ?? "")",
        metadata: ["librdkafka.facility": "\(facility.map { String(cString: $0) } ?? "")"])
}

private func errorCallback(_ rk: OpaquePointer?, _ err: Int32, _ reason: UnsafePointer<CChar>?, _ opaque: UnsafeMutableRawPointer?) {
    guard let context = CallbackContext.from(opaque) else { return }
    let name = String(cString: rd_kafka_err2name(rd_kafka_resp_err_t(err)))
    let text = reason.map { String(cString: $0) } ?? ""
    if err == RD_KAFKA_RESP_ERR__FATAL.rawValue, let rk {
        var errstr = [CChar](repeating: 0, count: 512)
        let fatal = rd_kafka_fatal_error(rk, &errstr, errstr.count)
        context.logger.critical(
            "fatal Kafka client error: \(String(cString: rd_kafka_err2name(fatal))): \(String(errorBuffer: errstr))")
    } else {
        // Mostly transient (broker down, all brokers down); librdkafka retries on its own.
        context.logger.warning("Kafka client error \(name): \(text)")
    }
}

private func statisticsCallback(
    _ rk: OpaquePointer?, _ json: UnsafeMutablePointer<CChar>?, _ length: Int, _ opaque: UnsafeMutableRawPointer?
) -> Int32 {
    guard let json, let context = CallbackContext.from(opaque) else { return 0 }
    context.statistics?.record(UnsafeRawBufferPointer(start: json, count: length))
    return 0  // librdkafka frees the JSON
}
