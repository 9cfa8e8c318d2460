import BraidConfig
import Logging
import OTel
import ServiceLifecycle
import Synchronization
import Tracing

extension BraidConfiguration {
    /// The OpenTelemetry tracer of `tracing.*` and the service that batches and exports its
    /// spans over OTLP/HTTP (protobuf) to `tracing.otlp_endpoint`; nil when tracing is off.
    /// Does not touch the process-wide `InstrumentationSystem` (``bootstrapTracing(command:)`` does).
    /// The standard `OTEL_*` variables (e.g. `OTEL_EXPORTER_OTLP_TRACES_HEADERS`) still apply.
    public func makeTracingBackend(command: String) throws -> (tracer: any Tracer, exporter: any Service)? {
        guard tracing.enabled else { return nil }
        var otel = OTel.Configuration.default
        otel.serviceName = tracingServiceName(command: command)
        otel.logs.enabled = false
        otel.metrics.enabled = false
        otel.traces.exporter = .otlp
        otel.traces.otlpExporter.`protocol` = .httpProtobuf
        otel.traces.otlpExporter.endpoint = tracing.otlpEndpoint
        otel.traces.sampler = .parentBasedTraceIDRatio(ratio: Double(tracing.samplePercent) / 100) ?? .parentBasedAlwaysOn
        otel.diagnosticLogger = .custom(Logger(label: "braid.tracing"))
        otel.diagnosticLogLevel = .warning
        let backend = try OTel.makeTracingBackend(configuration: otel)
        return (backend.factory, backend.service)
    }

    /// Bootstraps `InstrumentationSystem` with the tracer of `tracing.*`, once per process
    /// (later calls return nil), and returns the exporter's service: run it first in the
    /// command's `ServiceGroup` so that it stops last, after every span has ended, and flushes
    /// what is still batched (SIGTERM included). Nil when tracing is off: the process keeps the
    /// no-op instrument, so no span is recorded and no `traceparent` header is written.
    public func bootstrapTracing(command: String) throws -> (any Service)? {
        guard let backend = try makeTracingBackend(command: command) else { return nil }
        guard TracingBootstrap.claim() else { return nil }
        InstrumentationSystem.bootstrap(backend.tracer)
        return backend.exporter
    }
}

/// Whether this process has bootstrapped `InstrumentationSystem`, which may happen only once.
enum TracingBootstrap {
    private static let done = Mutex(false)

    static func claim() -> Bool {
        done.withLock { done in
            defer { done = true }
            return !done
        }
    }
}

/// Runs `body` while the tracing exporter runs, then shuts the exporter down so that every
/// span `body` ended is exported before returning: for one-shot commands (`braid publish`)
/// that have no `ServiceGroup` of their own. Without an exporter, just runs `body`.
public func withTracingExporter<T: Sendable>(_ exporter: (any Service)?, _ body: () async throws -> T) async throws -> T {
    guard let exporter else { return try await body() }
    let group = ServiceGroup(services: [exporter], logger: Logger(label: "braid.tracing"))
    return try await withThrowingTaskGroup(of: Void.self) { tasks in
        tasks.addTask { try await group.run() }
        let result: Result<T, any Error>
        do { result = .success(try await body()) } catch { result = .failure(error) }
        await group.triggerGracefulShutdown()
        try await tasks.waitForAll()
        return try result.get()
    }
}
