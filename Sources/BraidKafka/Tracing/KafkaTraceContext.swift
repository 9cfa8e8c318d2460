import Instrumentation

/// Trace context in Kafka message headers (W3C `traceparent`, and `tracestate` when there is
/// one), so a consumer's span continues the producer's trace across the queue. Which headers
/// are written is the instrument's business: the OpenTelemetry tracer writes W3C trace
/// context; the no-op instrument of a process without tracing writes none.
public enum KafkaTraceContext {
    /// Adds the headers that carry `context`, replacing any of the same name (a replayed
    /// dead letter keeps its original headers).
    public static func inject(
        _ context: ServiceContext, into headers: inout [KafkaHeader], instrument: any Instrument = InstrumentationSystem.instrument
    ) {
        instrument.inject(context, into: &headers, using: KafkaHeadersInjector())
    }

    /// The context the headers carry, on top of `base` (top-level when the headers carry none).
    public static func extract(
        from headers: [KafkaHeader], base: ServiceContext = .topLevel, instrument: any Instrument = InstrumentationSystem.instrument
    ) -> ServiceContext {
        var context = base
        instrument.extract(headers, into: &context, using: KafkaHeadersExtractor())
        return context
    }
}

/// Writes one header per key, replacing earlier ones of that name.
public struct KafkaHeadersInjector: Injector {
    public init() {}

    public func inject(_ value: String, forKey key: String, into carrier: inout [KafkaHeader]) {
        carrier.removeAll { $0.name == key }
        carrier.append(KafkaHeader(name: key, value: Array(value.utf8)))
    }
}

/// Reads the first header of a key as UTF-8.
public struct KafkaHeadersExtractor: Extractor {
    public init() {}

    public func extract(key: String, from carrier: [KafkaHeader]) -> String? {
        carrier.first { $0.name == key }.map { String(decoding: $0.value, as: UTF8.self) }
    }
}
