import BraidConfig
import BraidCore
@testable import BraidGateway
import BraidKafka
import BraidTestSupport
import BraidWiring
import Foundation
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

/// The console and its read-only admin routes against the real Redis and broker: what they
/// report, their 4xx on bad input, the token, and that every answer conforms to
/// `Schemas/openapi.yaml`.
@Suite("Console routes", .serialized, .integration)
struct ConsoleRouteTests {
    static func conforms(_ response: TestResponse, _ template: String) throws {
        let body = Data(String(buffer: response.body).utf8)
        let verdict = try OpenAPIValidator.validate(body, against: .response(path: template, method: "GET", status: Int(response.status.code)))
        #expect(verdict == nil, "\(template) \(response.status.code): \(verdict ?? "")")
    }

    @Test("Admin routes report arms, both sides of a page, experiment samples, lag of every partition, dead letters and snapshots")
    func adminRoutes() async throws {
        let fixture = try await WorkerFixture(partitions: 4, documents: 300, users: 10)
        var configuration = GatewayHarness.configuration(fixture)
        configuration.kafka.deadLetterTopic = fixture.deadLetterTopic
        configuration.kafka.consumerGroup = fixture.group
        // A dead letter as a worker writes it: the original message and the braid-dlq-* headers.
        let producer = try KafkaProducer(configuration: configuration.kafka.producer(clientID: "console-test"))
        _ = try await producer.sendAndAwait(KafkaProducerMessage(
            topic: fixture.deadLetterTopic, key: "rank:featured:x", value: "{not json",
            headers: [KafkaHeader(name: "braid-dlq-reason", value: "invalid JSON at line 1"),
                      KafkaHeader(name: "braid-dlq-source", value: "\(fixture.requestsTopic)/0/7"),
                      KafkaHeader(name: "braid-dlq-attempts", value: "1"),
                      KafkaHeader(name: "braid-dlq-failed-at", value: "2026-11-23T10:00:00Z")]))
        await producer.shutdown()
        try await GatewayHarness.with(configuration) { client, gateway in
            let console = try #require(gateway.routes.console)
            // The page and its script come from the binary (their bytes: `servedAsFiles`).
            let page = try await client.get("/console")
            #expect(page.status == .ok)
            #expect(String(buffer: page.body).contains("/console/console.js"))
            let script = try await client.get("/console/console.js")
            #expect(script.status == .ok && String(buffer: script.body).contains("function renderWorkers"))

            // Arms: each sample session lands in its arm on the public route.
            let overviewResponse = try await client.get("/v1/admin/console")
            try Self.conforms(overviewResponse, "/v1/admin/console")
            let overview = try JSONBody(overviewResponse)
            let arms = try #require(overview["arms"] as? [[String: Any]])
            #expect(arms.map { $0["name"] as? String } == ["ab", "draft"])
            #expect(overview["experiments"] as? [String] == ["draft"])
            for arm in arms {
                let session = try #require(arm["sample_session"] as? String)
                let searched = try await client.json("/v1/search?q=curry&per_page=5&session=\(session)")
                #expect((searched["interleaving"] as? [String: Any])?["arm"] as? String == arm["name"] as? String)
            }

            // Sides: B is the snapshot page 1 used (computed inline on the miss), A the live ranking.
            let first = try await client.json("/v1/search?q=curry&per_page=5")
            let version = try #require((first["interleaving"] as? [String: Any])?["snapshot"] as? Int)
            let sidesResponse = try await client.get("/v1/admin/sides?q=curry&size=7&version=\(version)")
            try Self.conforms(sidesResponse, "/v1/admin/sides")
            let sides = try JSONBody(sidesResponse)
            let a = try #require(sides["a"] as? [String: Any])
            let b = try #require(sides["b"] as? [String: Any])
            #expect((a["items"] as? [Any])?.count == 7)
            #expect(b["version"] as? Int == version)
            #expect((b["items"] as? [Any])?.count == 7)
            #expect((b["age_seconds"] as? Double).map { $0 >= 0 && $0 < 600 } == true)
            let items = try #require(first["items"] as? [[String: Any]])
            let bIDs = Set(((b["items"] as? [[String: Any]]) ?? []).compactMap { $0["id"] as? String })
            for item in items where item["team"] as? String == "B" {
                #expect(bIDs.contains(item["id"] as? String ?? ""), "a B item of the page is not in the snapshot's first documents")
            }
            // The query as people type it reads the snapshot of its normalised form.
            let typed = try await client.json("/v1/admin/sides?q=%20Curry%20&size=7")
            #expect((typed["b"] as? [String: Any])?["version"] as? Int == version, "\(typed)")
            let missing = try await client.json("/v1/admin/sides?q=curry&version=1")
            #expect(missing.status == 200 && (missing["b"] as? [String: Any])?["version"] == nil)
            for bad in ["", "?q=", "?q=%20", "?q=curry&size=0", "?q=curry&size=101", "?q=curry&ranking=nope", "?q=curry&version=abc",
                        "?q=curry&version=-1", "?q=%ZZ"] {
                let response = try await client.get("/v1/admin/sides\(bad)")
                #expect(response.status == .badRequest, "\(bad): \(response.status)")
                try Self.conforms(response, "/v1/admin/sides")
            }

            // Experiment history: one sample per sampling, unknown and invalid ids refused.
            await console.history.sampleOnce(events: gateway.routes.events)
            let historyResponse = try await client.get("/v1/admin/experiments/draft/history")
            try Self.conforms(historyResponse, "/v1/admin/experiments/{id}/history")
            #expect((try JSONBody(historyResponse)["samples"] as? [Any])?.count == 1)
            let unknown = try await client.get("/v1/admin/experiments/ab/history")
            #expect(unknown.status == .notFound)
            try Self.conforms(unknown, "/v1/admin/experiments/{id}/history")
            #expect(try await client.get("/v1/admin/experiments/Bad%20Id/history").status == .badRequest)

            // Workers: every partition of the requests topic, the dead letter, the snapshot of page 1.
            let workersResponse = try await client.get("/v1/admin/workers")
            try Self.conforms(workersResponse, "/v1/admin/workers")
            let workers = try JSONBody(workersResponse)
            #expect((workers["errors"] as? [String]) == [], "\(workers.object)")
            let groups = try #require(workers["groups"] as? [[String: Any]])
            let requests = try #require(groups.first { $0["topic"] as? String == fixture.requestsTopic })
            #expect(((requests["partitions"] as? [[String: Any]]) ?? []).compactMap { $0["partition"] as? Int } == [0, 1, 2, 3])
            let dead = try #require(workers["dead_letters"] as? [String: Any])
            #expect(dead["total"] as? Int == 1)
            let recent = try #require((dead["recent"] as? [[String: Any]])?.first)
            #expect(recent["reason"] as? String == "invalid JSON at line 1")
            #expect(recent["key"] as? String == "rank:featured:x")
            let rankings = try #require((workers["snapshots"] as? [String: Any])?["rankings"] as? [[String: Any]])
            let featured = try #require(rankings.first { $0["ranking"] as? String == "featured" })
            #expect((featured["count"] as? Int ?? 0) >= 1)
        }
    }

    @Test("The page, style and script are the files in Console/Resources byte for byte, with their types and no-cache")
    func servedAsFiles() async throws {
        let resources = RepositoryPaths.root.appendingPathComponent("Sources/BraidGateway/Console/Resources", isDirectory: true)
        func file(_ name: String) throws -> [UInt8] { Array(try Data(contentsOf: resources.appendingPathComponent(name))) }
        // Every script file in the repository is part of console.js, once.
        let scripts = try FileManager.default.contentsOfDirectory(atPath: resources.path).filter { $0.hasSuffix(".js") }
        let order = ConsoleAssets.scriptFiles.map(\.name)
        #expect(order.sorted() == scripts.sorted())
        let expected: [(path: String, bytes: [UInt8], type: String)] = [
            ("/console", try file("index.html"), "text/html; charset=utf-8"),
            ("/console/console.css", try file("console.css"), "text/css; charset=utf-8"),
            ("/console/console.js", try order.flatMap(file), "text/javascript; charset=utf-8"),
        ]
        let fixture = try await WorkerFixture(documents: 50, users: 5)
        try await GatewayHarness.with(GatewayHarness.configuration(fixture)) { client, _ in
            for (path, bytes, type) in expected {
                let response = try await client.get(path)
                #expect(response.status == .ok, "\(path)")
                // Compared whole but reported briefly: the bytes themselves would fill the log.
                let served = Array(response.body.readableBytesView)
                let same = served == bytes
                let firstDifference = zip(served, bytes).prefix { $0 == $1 }.count
                #expect(same, "\(path): \(served.count) bytes served, \(bytes.count) in the repository, first difference at byte \(firstDifference)")
                #expect(response.headers[.contentType] == type, "\(path)")
                #expect(response.headers[.cacheControl] == "no-cache", "\(path)")
                #expect(response.headers[.init("X-Content-Type-Options")!] == "nosniff", "\(path)")
            }
        }
    }

    @Test("With console.token the console and admin routes need it or a session it bought; without console.enabled they do not exist")
    func access() async throws {
        let fixture = try await WorkerFixture(partitions: 2, documents: 100, users: 5)
        var configuration = GatewayHarness.configuration(fixture)
        let token = "console-token-0123456789"
        configuration.console.token = Secret(token)
        try await GatewayHarness.with(configuration) { client, _ in
            for path in ["/v1/admin/console", "/v1/admin/workers"] {
                let refused = try await client.get(path)
                #expect(refused.status == .unauthorized, "\(path)")
                #expect(try JSONBody(refused).errorCode == "unauthorized")
                try Self.conforms(refused, path)
                #expect(try await client.get(path, headers: [.authorization: "Bearer wrong-token-0123456789"]).status == .unauthorized)
                #expect(try await client.get(path, headers: [.authorization: "Bearer \(token)"]).status == .ok, "\(path)")
                // The token itself is no cookie: only a session the gateway signed is.
                #expect(try await client.get(path, headers: [.cookie: "braid_console=\(token)"]).status == .unauthorized, "\(path)")
            }
            // Without a session, the console page is the sign-in form, which posts the token.
            let form = try await client.get("/console")
            #expect(form.status == .unauthorized)
            #expect(form.headers[.contentType]?.hasPrefix("text/html") == true)
            #expect(String(buffer: form.body).contains(#"<form method="post" action="/console/session">"#))
            #expect(form.headers[.contentSecurityPolicy]?.contains("form-action 'self'") == true)

            // Signing in by the form: a session cookie, never the token, with an expiry.
            let posted = try await client.execute(
                uri: "/console/session", method: .post, headers: [.contentType: "application/x-www-form-urlencoded"],
                body: ByteBuffer(string: "token=\(token)"))
            #expect(posted.status == .seeOther && posted.headers[.location] == "/console/")
            let cookie = try #require(posted.headers[.setCookie])
            #expect(cookie.hasPrefix("braid_console=1.") && !cookie.contains(token), "\(cookie)")
            for attribute in ["Max-Age=28800", "HttpOnly", "SameSite=Strict", "Path=/"] {
                #expect(cookie.contains(attribute), "\(attribute) missing: \(cookie)")
            }
            let session = String(cookie.prefix { $0 != ";" })
            for path in ["/console", "/v1/admin/console", "/v1/admin/workers"] {
                #expect(try await client.get(path, headers: [.cookie: "other=1; \(session)"]).status == .ok, "\(path)")
            }
            let wrong = try await client.execute(
                uri: "/console/session", method: .post, headers: [.contentType: "application/x-www-form-urlencoded"],
                body: ByteBuffer(string: "token=nope-nope-nope-nope"))
            #expect(wrong.status == .unauthorized)

            // The link form of sign-in: answered with the cookie and a redirect off the URL.
            let login = try await client.get("/console?token=\(token)")
            #expect(login.status == .seeOther && login.headers[.location] == "/console/")
            #expect(login.headers[.setCookie]?.hasPrefix("braid_console=1.") == true)
            #expect(login.headers[.setCookie]?.contains(token) == false)
            #expect(try await client.get("/console?token=nope").status == .unauthorized)
            // Public routes need no token.
            #expect(try await client.get("/healthz").status == .ok)
        }
        // A rotated console token ends every session it signed.
        let rotated = configuration
        var next = configuration
        next.console.token = Secret("another-console-token-0123")
        let cookie = try await GatewayHarness.with(rotated) { client, _ in
            try await client.get("/console?token=\(token)").headers[.setCookie].map { String($0.prefix { $0 != ";" }) } ?? ""
        }
        try await GatewayHarness.with(next) { client, _ in
            let status = try await client.get("/v1/admin/console", headers: [.cookie: cookie]).status
            #expect(status == .unauthorized, "a session signed with the previous token")
        }
        configuration.console = .init()
        configuration.console.enabled = false
        try await GatewayHarness.with(configuration) { client, gateway in
            #expect(gateway.routes.console == nil)
            for path in ["/console", "/v1/admin/console", "/v1/admin/workers"] {
                let response = try await client.get(path)
                #expect(response.status == .notFound, "\(path)")
            }
        }
    }
}
