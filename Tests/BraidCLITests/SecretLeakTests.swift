import BraidTestSupport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

/// Every kind of secret Braid takes, given the ways production gives them (variables and
/// `*_FILE` files), used for real (a Redis that requires its password, an Elasticsearch
/// stand-in that requires its API key), and then looked for in everything the processes
/// printed: gateway and worker logs at debug level, both `/metrics`, HTTP error bodies,
/// `braid ops` output and start-up errors. Looked for as text, and, with every key Braid
/// derives from them (the impression signing key, the user-key secret, the console session
/// key), as byte arrays, hex and base64: a key printed in any form signs what it signs.
@Suite("Secrets stay out of logs, /metrics, errors and braid ops output", .integration)
struct SecretLeakTests {
    static let documents = (1...40).map { String(format: "r%06d", $0) }

    /// Answers `POST /recipes/_search` like Elasticsearch (from, size and excluded ids
    /// honoured) when the request carries `ApiKey <apiKey>`; 401 otherwise.
    static func elasticsearch(apiKey: String) async throws -> TinyHTTPServer {
        try await TinyHTTPServer.start { request in
            guard request.headers["authorization"] == "ApiKey \(apiKey)" else {
                return .init(status: 401, body: Data(#"{"error":{"type":"security_exception"},"status":401}"#.utf8))
            }
            let body = (try? JSONSerialization.jsonObject(with: request.body)) as? [String: Any] ?? [:]
            let excluded = Set(Self.excludedIDs(in: body))
            let matching = documents.filter { !excluded.contains($0) }
            let from = min(body["from"] as? Int ?? 0, matching.count)
            let size = body["size"] as? Int ?? 10
            let hits = matching[from..<min(from + size, matching.count)].enumerated().map { index, id in
                #"{"_id":"\#(id)","_score":\#(100 - from - index),"_source":{"title":"Recipe \#(id)"}}"#
            }
            return .init(status: 200, body: Data(#"{"hits":{"total":{"value":\#(matching.count),"relation":"eq"},"hits":[\#(hits.joined(separator: ","))]}}"#.utf8))
        }
    }

    static func excludedIDs(in body: [String: Any]) -> [String] {
        var found: [String] = []
        func walk(_ value: Any) {
            if let object = value as? [String: Any] {
                if let ids = object["ids"] as? [String: Any], let values = ids["values"] as? [String] { found += values }
                object.values.forEach(walk)
            } else if let list = value as? [Any] {
                list.forEach(walk)
            }
        }
        walk(body["query"] ?? [:])
        return found
    }

    static func file(_ contents: String) throws -> String {
        let url = try TestEnvironment.runDirectory().appendingPathComponent("secret-\(UUID().uuidString)")
        try contents.write(to: url, atomically: true, encoding: .utf8)
        return url.path
    }

    static func get(_ url: String) async throws -> (status: Int, body: String) {
        let (data, response) = try await URLSession.shared.data(from: URL(string: url)!)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: data, as: UTF8.self))
    }

    @Test func noSecretIsPrintedAnywhere() async throws {
        let tag = UUID().uuidString.prefix(8)
        let secrets = [
            "redis": "redis-pw-\(tag)", "kafka": "kafka-pw-\(tag)", "elasticsearch": "es-key-\(tag)",
            "cursor": "cursor-key-\(tag)", "previous": "previous-key-\(tag)", "wrong": "wrong-pw-\(tag)",
            "mistyped": "mistyped-pw-\(tag)", "impression": "impression-key-\(tag)", "previous impression": "previous-impression-\(tag)",
            "console": "console-token-\(tag)",
        ]
        var keys: [(name: String, bytes: [UInt8])] = secrets.map { ($0.key, Array($0.value.utf8)) }
        keys += SecretForms.impressionKeys(secrets["impression"]!) + SecretForms.impressionKeys(secrets["previous impression"]!)
        keys.append(("console session key", SecretForms.derived(secrets["console"]!, label: "braid-console-session")))
        let redis = try RedisServerProcess(extraArguments: ["--requirepass", secrets["redis"]!])
        try await redis.start()
        let elasticsearch = try await Self.elasticsearch(apiKey: secrets["elasticsearch"]!)
        var printed: [String: String] = [:]
        do {
            let fixture = try await WorkerFixture(documents: 50, users: 5)
            let gatewayPort = try FreePort.find()
            let workerPort = try FreePort.find()
            let environment = fixture.environment.merging([
                "BRAID_REDIS_URL": redis.url, "BRAID_REDIS_PASSWORD_FILE": try Self.file(secrets["redis"]! + "\n"),
                "BRAID_KAFKA_PROPERTY_SASL_PASSWORD": secrets["kafka"]!,
                "BRAID_SEARCH_SOURCE": "elasticsearch", "BRAID_SEARCH_ELASTICSEARCH_URL": elasticsearch.baseURL,
                "BRAID_SEARCH_ELASTICSEARCH_API_KEY_FILE": try Self.file(secrets["elasticsearch"]!),
                "BRAID_GATEWAY_CURSOR_KEY": secrets["cursor"]!, "BRAID_GATEWAY_PREVIOUS_CURSOR_KEY": secrets["previous"]!,
                "BRAID_GATEWAY_IMPRESSION_KEY": secrets["impression"]!, "BRAID_GATEWAY_PREVIOUS_IMPRESSION_KEY": secrets["previous impression"]!,
                "BRAID_CONSOLE_TOKEN": secrets["console"]!,
                "BRAID_GATEWAY_PREVIOUS_CURSOR_KEY_UNTIL": "2099-01-01T00:00:00Z",
                "BRAID_GATEWAY_PORT": "\(gatewayPort)", "BRAID_WORKER_METRICS_PORT": "\(workerPort)", "BRAID_LOGGING_LEVEL": "debug",
            ]) { $1 }
            let gatewayLog = try fixture.logFile(of: "gateway")
            let gateway = try await TestRun.start(BraidBinary.url.path, ["gateway"], environment: environment, log: gatewayLog)
            let worker = try await fixture.startWorker("worker", environment: environment)
            defer {
                gateway.kill9()
                worker.kill9()
            }
            let deadline = ContinuousClock.now + .seconds(30)
            while !FreePort.accepts(port: gatewayPort) {
                let log = try fixture.log(of: "gateway")
                try #require(ContinuousClock.now < deadline && !gateway.hasExited, "braid gateway did not start: \(log)")
                try await Task.sleep(for: .milliseconds(100))
            }
            try await fixture.waitUntilAssigned("worker")

            // The secrets are in use: pages interleave a snapshot stored in the password-protected
            // Redis, from the source that requires the API key, and the next cursor works.
            let base = "http://127.0.0.1:\(gatewayPort)"
            let first = try await Self.get("\(base)/v1/search?q=curry&per_page=5&session=s1")
            #expect(first.status == 200, "\(first.body)")
            let page = try #require(try JSONSerialization.jsonObject(with: Data(first.body.utf8)) as? [String: Any])
            #expect(page["degraded"] as? Bool == false, "\(first.body)")
            #expect((page["items"] as? [Any])?.count == 5, "\(first.body)")
            let cursor = try #require(page["next_cursor"] as? String)
            let second = try await Self.get("\(base)/v1/search?q=curry&cursor=\(cursor)&session=s1")
            #expect(second.status == 200, "\(second.body)")
            #expect(elasticsearch.requests.contains { $0.headers["authorization"] == "ApiKey \(secrets["elasticsearch"]!)" })
            printed["pages"] = first.body + second.body
            printed["bad cursor"] = try await Self.get("\(base)/v1/search?q=curry&cursor=AAAA\(cursor.dropFirst(4))").body
            printed["gateway /metrics"] = try await Self.get("\(base)/metrics").body
            printed["gateway /readyz"] = try await Self.get("\(base)/readyz").body
            printed["worker /metrics"] = try await Self.get("http://127.0.0.1:\(workerPort)/metrics").body

            let ops = try BraidBinary.run(["ops", "snapshot", "show", "featured", "curry"], environment: environment)
            #expect(ops.status == 0, "\(ops.stderr)")
            printed["ops"] = ops.stdout + ops.stderr
            var wrongPassword = environment
            wrongPassword["BRAID_REDIS_PASSWORD_FILE"] = try Self.file(secrets["wrong"]!)
            let refused = try BraidBinary.run(["ops", "snapshot", "show", "featured", "curry"], environment: wrongPassword)
            #expect(refused.status != 0)
            printed["ops with a wrong password"] = refused.stdout + refused.stderr
            var badURL = environment
            badURL["BRAID_REDIS_URL"] = "redis://braid:\(secrets["wrong"]!)@"
            badURL.removeValue(forKey: "BRAID_REDIS_PASSWORD_FILE")
            let unusable = try BraidBinary.run(["ops", "snapshot", "show", "featured", "curry"], environment: badURL)
            #expect(unusable.status != 0)
            #expect(unusable.stderr.contains("redis.url"), "\(unusable.stderr)")
            printed["ops with a bad URL"] = unusable.stdout + unusable.stderr

            // A mistyped secret property: refused at start, naming the property, not the value.
            var mistyped = environment
            mistyped["BRAID_KAFKA_PROPERTY_SASL_PASSWROD"] = secrets["mistyped"]!
            mistyped["BRAID_GATEWAY_PORT"] = "\(try FreePort.find())"
            let typo = try BraidBinary.run(["gateway"], environment: mistyped)
            #expect(typo.status != 0)
            #expect((typo.stdout + typo.stderr).contains("sasl.passwrod"), "\(typo.stderr)")
            printed["gateway with a mistyped Kafka property"] = typo.stdout + typo.stderr

            gateway.signal(SIGTERM)
            worker.signal(SIGTERM)
            #expect(await gateway.waitForExit(timeout: .seconds(20)) == 0)
            #expect(await worker.waitForExit(timeout: .seconds(30)) == 0)
            printed["gateway log"] = try fixture.log(of: "gateway")
            printed["worker log"] = try fixture.log(of: "worker")
            #expect(printed["gateway log"]?.contains("listening") == true, "\(printed["gateway log"] ?? "")")
            // At debug level the service group describes every service it starts: the values
            // that hold the codecs were printed, so their redaction was tested.
            #expect(printed["gateway log"]?.contains("ExperimentSampler") == true, "no service was described: \(printed["gateway log"] ?? "")")
        } catch {
            try? await elasticsearch.stop()
            await redis.stop()
            throw error
        }
        try? await elasticsearch.stop()
        await redis.stop()

        for (source, text) in printed {
            for (name, secret) in secrets {
                #expect(!text.contains(secret), "the \(name) secret appears in \(source)")
            }
            for line in text.split(separator: "\n") {
                if let leak = SecretForms.firstLeak(in: String(line), of: keys) {
                    Issue.record("\(leak) appears in \(source): \(line.prefix(300))")
                }
            }
            if let leak = SecretForms.firstLeak(in: text, of: keys) { Issue.record("\(leak) appears in \(source) (across lines)") }
        }
    }
}
