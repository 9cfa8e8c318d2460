import BraidObservability
import Hummingbird
import HummingbirdTesting
import Testing

/// A worker's `/metrics` needs `admin.token` when one is set; `/healthz` never does (probes).
@Suite("worker metrics access")
struct WorkerMetricsAccessTests {
    @Test func metricsNeedTheAdminTokenAndHealthDoesNot() async throws {
        let token = "worker-admin-token-0123456789abcdef"
        try await Application(router: MetricsEndpoint.router(token: token)).test(.router) { client in
            let refused = try await client.execute(uri: "/metrics", method: .get)
            #expect(refused.status == .unauthorized)
            let wrong = try await client.execute(uri: "/metrics", method: .get, headers: [.authorization: "Bearer not-\(token)"])
            #expect(wrong.status == .unauthorized)
            let allowed = try await client.execute(uri: "/metrics", method: .get, headers: [.authorization: "Bearer \(token)"])
            #expect(allowed.status == .ok)
            let health = try await client.execute(uri: "/healthz", method: .get)
            #expect(health.status == .ok)
        }
        try await Application(router: MetricsEndpoint.router(token: "")).test(.router) { client in
            let open = try await client.execute(uri: "/metrics", method: .get)
            #expect(open.status == .ok, "no token configured (loopback): open")
        }
    }
}
