import BraidHarness
import BraidDevSupport
import Foundation
import NIOHTTP1

/// The gateway and worker under attack, started in their production configuration on
/// loopback: every key and token a fresh random secret given as a file (`BRAID_*_FILE`), users
/// verified from JWTs of an issuer of the suite's own (its JWKS served by a small local HTTP
/// server), the admin surface on a listener of its own, real Redis and the broker.
struct AttackTarget: Sendable {
    /// The secrets of this run (32 random bytes each, base64).
    struct Secrets: Sendable {
        var cursorKey = Self.random()
        var impressionKey = Self.random()
        var consoleToken = Self.random()
        var adminToken = Self.random()

        static func random() -> String { Data((0..<32).map { _ in UInt8.random(in: 0...255) }).base64EncodedString() }

        var all: [String] { [cursorKey, impressionKey, consoleToken, adminToken] }
    }

    let run: RunDirectory
    let stack: LocalStack
    let gateway: BraidService
    let worker: BraidService
    let adminPort: Int
    let workerMetricsPort: Int
    /// What both services were started with.
    let environment: [String: String]
    let secrets: Secrets
    let issuer: TestTokenIssuer
    /// `http.header_timeout_ms` of the services.
    let headerTimeout: Duration

    var publicURL: String { gateway.baseURL }
    var adminURL: String { "http://127.0.0.1:\(adminPort)" }
    var workerMetricsURL: String { "http://127.0.0.1:\(workerMetricsPort)/metrics" }

    /// Starts the stack, the issuer's JWKS server, a worker and a gateway.
    static func start(in run: RunDirectory, headerTimeout: Duration = .seconds(2), say: @escaping (String) -> Void) async throws -> (AttackTarget, TinyHTTPServer) {
        let stack = try await LocalStack.start(in: run, partitions: 2, documents: 2_000, users: 50, say: say)
        let issuer = try await TestTokenIssuer()
        let jwks = try await TinyHTTPServer.start { request in
            request.uri == "/.well-known/jwks.json" ? .init(status: 200, body: issuer.jwks) : .init(status: 404, body: Data())
        }
        let secrets = Secrets()
        var files: [String: String] = [:]
        for (variable, value) in [
            ("BRAID_GATEWAY_CURSOR_KEY", secrets.cursorKey), ("BRAID_GATEWAY_IMPRESSION_KEY", secrets.impressionKey),
            ("BRAID_CONSOLE_TOKEN", secrets.consoleToken), ("BRAID_ADMIN_TOKEN", secrets.adminToken), ("BRAID_IDENTITY_JWT_HS256_KEY", issuer.hs256Key),
        ] {
            let file = run.file(variable.lowercased())
            try Data(value.utf8).write(to: file)
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file.path)
            files[variable + "_FILE"] = file.path
        }
        let (adminPort, metricsPort) = try (Ports.free(), Ports.free())
        let seconds = headerTimeout.components.seconds
        let environment = stack.environment.merging(files) { $1 }.merging([
            "BRAID_GATEWAY_HOST": "127.0.0.1", "BRAID_GATEWAY_ADMIN_HOST": "127.0.0.1", "BRAID_GATEWAY_ADMIN_PORT": "\(adminPort)",
            "BRAID_WORKER_METRICS_HOST": "127.0.0.1", "BRAID_WORKER_METRICS_PORT": "\(metricsPort)",
            "BRAID_IDENTITY_MODE": "jwt", "BRAID_IDENTITY_JWT_ISSUER": issuer.issuer, "BRAID_IDENTITY_JWT_AUDIENCE": issuer.audience,
            "BRAID_IDENTITY_JWT_JWKS_URL": "\(jwks.baseURL)/.well-known/jwks.json",
            "BRAID_HTTP_HEADER_TIMEOUT_MS": "\(seconds * 1_000)", "BRAID_HTTP_BODY_TIMEOUT_MS": "\(seconds * 1_000)",
            // Short enough to replay a cursor after it expired within the run.
            "BRAID_GATEWAY_CURSOR_TTL_SECONDS": "3",
            // Every page carries an impression id (team draft), the evidence a forger would mint.
            "BRAID_INTERLEAVING_MODE": "team_draft",
            // Short enough to replay an impression id after its window within the run.
            "BRAID_GATEWAY_IMPRESSION_WINDOW_SECONDS": "4",
            // A debug build on a loaded 2-core machine must not turn pages into 503s.
            "BRAID_GATEWAY_LIVE_TIMEOUT_MS": "10000", "BRAID_WORKER_RETRY_BACKOFF_MS": "50",
        ]) { $1 }
        let worker = try await BraidService.worker(in: run, environment: environment)
        let gateway = try await BraidService.gateway(in: run, environment: environment)
        say("gateway at \(gateway.baseURL) (admin 127.0.0.1:\(adminPort)), worker metrics on \(metricsPort), JWKS at \(jwks.baseURL)")
        let target = AttackTarget(
            run: run, stack: stack, gateway: gateway, worker: worker, adminPort: adminPort, workerMetricsPort: metricsPort,
            environment: environment, secrets: secrets, issuer: issuer, headerTimeout: headerTimeout)
        return (target, jwks)
    }

    /// A request to the gateway's public listener (or `base`), with a bearer token.
    func request(
        _ path: String, method: HTTPMethod = .GET, body: String? = nil, token: String? = nil, base: String? = nil,
        headers: [(String, String)] = []
    ) async throws -> HTTPProbe.Response {
        var fields = headers
        if let token { fields.append(("Authorization", "Bearer \(token)")) }
        return try await HTTPProbe.request((base ?? publicURL) + path, method: method, body: body.map { Data($0.utf8) }, headers: fields, timeout: .seconds(30))
    }

    /// The services' environment with `overrides` (a nil value removes a variable); setting
    /// a variable drops its `_FILE` form, as both together are refused.
    func environment(_ overrides: [String: String?]) -> [String: String] {
        var result = environment
        for (name, value) in overrides {
            result.removeValue(forKey: name + "_FILE")
            result[name] = value
        }
        return result
    }

    /// Starts `braid <command>` with `overrides` and waits up to 30 s for it to exit: a
    /// process that should refuse to start. Nil status: it did not exit (it started; then it
    /// is stopped).
    func attemptStart(_ command: String, _ overrides: [String: String?], name: String) async throws -> (status: Int32?, output: String) {
        let log = run.file("\(name).log")
        let child = try await run.start(BraidService.binary, [command], environment: environment(overrides), logFile: log)
        let status = await child.waitForExit(timeout: .seconds(30))
        if status == nil { await run.stop(child) } else { run.forget(child) }
        let output = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        return (status.flatMap(ChildProcess.exitCode), output)
    }

    /// Every place the run's infrastructure lives, which no public answer may mention.
    var internals: [String] {
        ["127.0.0.1", "localhost", "\(stack.redis.port)", stack.broker.brokers, stack.corpus.path, run.url.path, "redis://", "sqlite"]
    }
}
