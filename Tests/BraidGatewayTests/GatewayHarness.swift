import BraidConfig
import BraidCore
import BraidGateway
import BraidKafka
import BraidRedis
import BraidTestSupport
import BraidWiring
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

/// A gateway in this process, over the Redis, broker and corpus of a ``WorkerFixture``,
/// driven through Hummingbird's router test client (no socket; the servers behind it are real).
enum GatewayHarness {
    /// The configuration of a gateway on `fixture`'s servers: two interleaving arms (plain
    /// AB, and team-draft with a late start and a cap), so sessions exercise both. On the
    /// fixture's Redis (server, TLS server or cluster) unless `redisURL` names another server.
    static func configuration(_ fixture: WorkerFixture, redisURL: String? = nil) -> BraidConfiguration {
        var configuration = BraidConfiguration()
        configuration.redis.url = redisURL ?? fixture.redisURL
        if redisURL == nil {
            configuration.redis.clusterNodes = fixture.redisClusterNodes
            configuration.redis.tls.caFile = fixture.redisCAFile
        }
        configuration.redis.keyPrefix = fixture.keyPrefix
        configuration.redis.commandTimeout = .milliseconds(1_000)
        configuration.kafka.brokers = fixture.brokers
        configuration.kafka.requestsTopic = fixture.requestsTopic
        configuration.kafka.eventsTopic = fixture.eventsTopic
        configuration.search.sqlite.path = fixture.corpus.path
        configuration.gateway.port = 0
        // Generous: a loaded CI machine must not turn into 503s; deadlines have their own test.
        configuration.gateway.liveTimeout = .milliseconds(10_000)
        // These tests are about what a stored snapshot does, so every miss earns one;
        // admission's threshold has tests of its own (AdmissionRouteTests).
        configuration.gateway.admission.threshold = 1
        configuration.interleaving.arms = [
            .init(name: "ab", weight: 50),
            .init(name: "draft", weight: 50, start: 3, maxDocs: 15, mode: .teamDraft),
        ]
        return configuration
    }

    /// Runs `body` against a gateway built from `configuration`, then stops its clients.
    static func with<T: Sendable>(
        _ configuration: BraidConfiguration, waitForRedis: Bool = true, live: Bool = false,
        _ body: @escaping @Sendable (any TestClientProtocol, GatewayAssembly) async throws -> T
    ) async throws -> T {
        try configuration.validate()
        let gateway = try GatewayAssembly(configuration: configuration)
        let application = Application(router: gateway.routes.router())
        let result: Result<T, any Error> = await withTaskGroup(of: Void.self) { group in
            group.addTask { try? await gateway.redis.run() }
            // As in production, pointers and component versions are kept current by key tracking.
            if let tracker = gateway.keyTracker { group.addTask { try? await tracker.run() } }
            defer { group.cancelAll() }
            do {
                if waitForRedis {
                    try await gateway.redis.waitUntilConnected()
                    // As the service would at start; until then /readyz says not ready.
                    try await gateway.layoutClaim?.claimAll()
                }
                return .success(try await application.test(live ? .live : .router) { client in try await body(client, gateway) })
            } catch {
                return .failure(error)
            }
        }
        await gateway.producer.shutdown()
        await gateway.shutdown()
        return try result.get()
    }
}

/// A decoded JSON response.
struct JSONBody: @unchecked Sendable {
    let status: Int
    let object: [String: Any]

    init(_ response: TestResponse) throws {
        status = Int(response.status.code)
        let data = Data(String(buffer: response.body).utf8)
        object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any], "not a JSON object: \(String(buffer: response.body))")
    }

    subscript(key: String) -> Any? { object[key] }

    /// `error.code` of an error body, nil for anything else.
    var errorCode: String? { (object["error"] as? [String: Any])?["code"] as? String }
}

extension TestClientProtocol {
    func get(_ uri: String, headers: HTTPFields = [:]) async throws -> TestResponse {
        try await execute(uri: uri, method: .get, headers: headers)
    }

    func json(_ uri: String) async throws -> JSONBody {
        try JSONBody(try await get(uri))
    }
}

/// Percent-encodes a query parameter value.
func encoded(_ value: String) -> String {
    value.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? value
}
