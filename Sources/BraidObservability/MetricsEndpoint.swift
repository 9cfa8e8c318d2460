import Hummingbird
import Logging
import ServiceLifecycle

/// `GET /metrics` in the Prometheus text format: one implementation for the gateway's
/// router and the workers' small server.
public enum MetricsEndpoint {
    /// Adds `GET /metrics` to a router.
    public static func addRoute<Context: RequestContext>(to router: Router<Context>) {
        router.get("/metrics") { _, _ in
            Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                body: .init(byteBuffer: ByteBuffer(string: Observability.prometheusText())))
        }
    }

    /// A small HTTP server for processes without an API of their own (workers): `GET /metrics`
    /// and `GET /healthz`, as a `Service`; port 0 picks a free port (logged at start).
    public static func service(host: String, port: Int, logger: Logger) -> some Service {
        let router = Router()
        addRoute(to: router)
        router.get("/healthz") { _, _ in "ok\n" }
        return Application(
            router: router, configuration: .init(address: .hostname(host, port: port), serverName: "braid"), logger: logger)
    }
}
