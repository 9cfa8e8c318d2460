import Crypto
import Hummingbird

/// `GET /metrics` in the Prometheus text format: one implementation for the gateway's
/// admin surface and the workers' small server.
public enum MetricsEndpoint {
    /// The current metrics as a response.
    public static func response() -> Response {
        Response(
            status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(string: Observability.prometheusText())))
    }

    /// The router of a process without an API of its own (workers): `GET /metrics` and
    /// `GET /healthz`. With a `token` (`admin.token`), `/metrics` needs
    /// `Authorization: Bearer <token>` (401 otherwise); `/healthz` stays open for probes.
    public static func router(token: String) -> Router<BasicRequestContext> {
        let router = Router()
        let digest = SHA256.hash(data: Array(token.utf8))
        router.get("/metrics") { request, _ in
            guard token.isEmpty || bearerDigest(request) == digest else {
                return Response(
                    status: .unauthorized, headers: [.wwwAuthenticate: "Bearer", .contentType: "text/plain; charset=utf-8"],
                    body: .init(byteBuffer: ByteBuffer(string: "/metrics needs the admin token: Authorization: Bearer <token>\n")))
            }
            return response()
        }
        router.get("/healthz") { _, _ in "ok\n" }
        return router
    }

    /// Digests are compared, so the time taken says nothing about how much of a guess was right.
    static func bearerDigest(_ request: Request) -> SHA256.Digest? {
        guard let authorization = request.headers[.authorization], authorization.count > 7, authorization.prefix(7).lowercased() == "bearer "
        else { return nil }
        return SHA256.hash(data: Array(authorization.dropFirst(7).utf8))
    }
}
