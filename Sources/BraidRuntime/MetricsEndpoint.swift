import Hummingbird
import Logging
import ServiceLifecycle

/// A small HTTP server for processes without an API of their own (workers): `GET /metrics`
/// in the Prometheus text format and `GET /healthz`.
public enum MetricsEndpoint {
    /// The server as a `Service`; port 0 picks a free port (logged at start).
    public static func service(host: String, port: Int, logger: Logger) -> some Service {
        let router = Router()
        router.get("/metrics") { _, _ in
            Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                body: .init(byteBuffer: ByteBuffer(string: Observability.prometheusText())))
        }
        router.get("/healthz") { _, _ in "ok\n" }
        return Application(
            router: router, configuration: .init(address: .hostname(host, port: port), serverName: "braid"), logger: logger)
    }
}
