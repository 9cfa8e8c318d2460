import BraidConfig
import BraidContracts
import BraidCore
import BraidKafka
import BraidPrecompute
import BraidWiring
import Foundation
import Testing
import Tracing

/// W3C trace context through Kafka headers with the tracer the wiring builds (swift-otel's,
/// not bootstrapped into this test process, which keeps the no-op instrument), and no header
/// at all with tracing off (the default).
@Suite("Trace context in Kafka headers")
struct TraceHeadersTests {
    static let request = PrecomputeRequest(body: .ranking(.init(ranking: "featured", query: "curry")))

    /// A tracer as `tracing.enabled: true` makes it; its exporter never runs (nothing is sent).
    static func tracer() throws -> any Tracer {
        var configuration = BraidConfiguration()
        configuration.tracing.enabled = true
        configuration.tracing.otlpEndpoint = "http://127.0.0.1:9/v1/traces"
        return try #require(try configuration.makeTracingBackend(command: "test")).tracer
    }

    static func traceparent(_ headers: [KafkaHeader]) -> String? {
        headers.first { $0.name == "traceparent" }.map { String(decoding: $0.value, as: UTF8.self) }
    }

    /// `00-<trace id>-<span id>-<flags>`.
    static func parts(_ traceparent: String) -> [String] {
        traceparent.split(separator: "-").map(String.init)
    }

    @Test func tracingOffByDefaultAddsNoHeaders() throws {
        let configuration = BraidConfiguration()
        #expect(configuration.tracing.enabled == false)
        #expect(try configuration.makeTracingBackend(command: "publish") == nil)
        #expect(try configuration.bootstrapTracing(command: "publish") == nil)
        // The process's instrument is the no-op one: even inside a span, no header.
        let message = withSpan("caller") { _ in
            RequestPublisher.message(for: Self.request, topic: "braid.requests", context: ServiceContext.current)
        }
        #expect(message.headers.isEmpty, "\(message.headers)")
        #expect(message.key == Array(Self.request.messageKey.utf8))
    }

    @Test func traceparentRoundTripsThroughKafkaHeaders() throws {
        let tracer = try Self.tracer()
        let publish = tracer.startSpan("publish braid.requests", context: .topLevel, ofKind: .producer)
        defer { publish.end() }
        let produced = RequestPublisher.message(for: Self.request, topic: "braid.requests", context: publish.context, instrument: tracer)
        #expect(produced.headers.filter { $0.name == "traceparent" }.count == 1, "\(produced.headers)")
        let sent = try #require(Self.traceparent(produced.headers))
        #expect(sent.wholeMatch(of: /00-[0-9a-f]{32}-[0-9a-f]{16}-01/) != nil, "\(sent)")

        // What the worker gets: the same headers on a consumed message.
        let consumed = KafkaConsumerMessage(
            topic: produced.topic, partition: 0, offset: 42, key: produced.key, value: produced.value, headers: produced.headers)
        let extracted = KafkaTraceContext.extract(from: consumed.headers, instrument: tracer)
        var again: [KafkaHeader] = []
        KafkaTraceContext.inject(extracted, into: &again, instrument: tracer)
        #expect(Self.traceparent(again) == sent, "the extracted context is the publisher's span")

        // The worker's span under it: same trace, a span of its own.
        let materialize = tracer.startSpan("materialize", context: extracted, ofKind: .consumer)
        defer { materialize.end() }
        var child: [KafkaHeader] = []
        KafkaTraceContext.inject(materialize.context, into: &child, instrument: tracer)
        let childParts = Self.parts(try #require(Self.traceparent(child)))
        #expect(childParts[1] == Self.parts(sent)[1], "same trace id")
        #expect(childParts[2] != Self.parts(sent)[2], "a new span id")
    }

    @Test func injectingReplacesAnEarlierTraceparent() throws {
        let tracer = try Self.tracer()
        let span = tracer.startSpan("replay", context: .topLevel, ofKind: .producer)
        defer { span.end() }
        var headers = [
            KafkaHeader(name: "traceparent", value: Array("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01".utf8)),
            KafkaHeader(name: "braid-dlq-reason", value: Array("x".utf8)),
        ]
        KafkaTraceContext.inject(span.context, into: &headers, instrument: tracer)
        #expect(headers.filter { $0.name == "traceparent" }.count == 1)
        #expect(Self.traceparent(headers)?.contains("0af7651916cd43dd8448eb211c80319c") == false)
        #expect(headers.contains { $0.name == "braid-dlq-reason" })
    }

    @Test func tracingKeysLoadFromEnvironment() throws {
        let configuration = try ConfigurationLoader.load(file: nil, environment: [
            "BRAID_TRACING_ENABLED": "true", "BRAID_TRACING_OTLP_ENDPOINT": "http://collector:4318/v1/traces",
            "BRAID_TRACING_SERVICE_NAME": "search-gateway", "BRAID_TRACING_SAMPLE_PERCENT": "25",
        ])
        #expect(configuration.tracing.enabled)
        #expect(configuration.tracing.otlpEndpoint == "http://collector:4318/v1/traces")
        #expect(configuration.tracingServiceName(command: "gateway") == "search-gateway")
        #expect(configuration.tracing.samplePercent == 25)
        #expect(BraidConfiguration().tracingServiceName(command: "worker") == "braid-worker")
        var bad = BraidConfiguration()
        bad.tracing.samplePercent = 101
        #expect(throws: ConfigurationError.self) { try bad.validate() }
        bad = BraidConfiguration()
        bad.tracing.otlpEndpoint = "collector:4318"
        #expect(throws: ConfigurationError.self) { try bad.validate() }
    }
}
