import BraidHarness
import BraidDevSupport
import Foundation
import NIOHTTP1

/// Error bodies say what went wrong, never where: 4xx answers of the gateway under attack,
/// and the 503 of a second gateway whose live backend is a dead port, must not mention an
/// address, a port, a path or an upstream's words.
struct ErrorBodyLeakAttack: AttackScenario {
    let name = "leak-error-bodies"

    func run(against target: AttackTarget) async throws -> AttackVerdict {
        var checks = AttackChecks()
        var bodies: [(String, HTTPProbe.Response)] = []
        let token = try await target.issuer.token(for: "u00001")
        for (what, path, method, body) in [
            ("bad cursor", "/v1/search?q=curry&cursor=AAAA", "GET", nil),
            ("unknown route", "/v1/nowhere", "GET", nil),
            ("unknown feed", "/v1/feeds/nope", "GET", nil),
            ("bad body", "/v1/events", "POST", "{not json"),
            ("bad parameter", "/v1/search?q=curry&per_page=1000", "GET", nil),
        ] as [(String, String, String, String?)] {
            bodies.append((what, try await target.request(path, method: method == "POST" ? .POST : .GET, body: body, token: token)))
        }
        let (dead, deadPort) = try await Self.gatewayWithDeadBackend(target)
        let search = try await target.request("/v1/search?q=curry", base: dead.baseURL)
        checks.expect(search.status == 503, "the live backend down: \(search.status)")
        bodies.append(("503 of a dead live backend", search))
        await dead.stop()
        var clean = 0
        for (what, response) in bodies {
            let found = (target.internals + ["\(deadPort)", "rank", "onnect", "refused", "/work", "Error("]).filter { response.text.contains($0) }
            checks.expect(found.isEmpty, "\(what) (\(response.status)) mentions \(found): \(response.text.prefix(200))")
            checks.expect(response.json?["error"] != nil, "\(what) is not a JSON error: \(response.text.prefix(120))")
            if found.isEmpty { clean += 1 }
        }
        return checks.verdict("\(clean)/\(bodies.count) error bodies name no address, port, path or upstream text (4xx and a 503)")
    }

    /// A second gateway of the same configuration whose live backend is a port nothing listens on.
    static func gatewayWithDeadBackend(_ target: AttackTarget) async throws -> (BraidService, Int) {
        let port = try Ports.free()
        let environment = target.environment([
            "BRAID_SEARCH_SOURCE": "http", "BRAID_SEARCH_HTTP_URL": "http://127.0.0.1:\(port)/rank", "BRAID_SEARCH_TIMEOUT_MS": "500",
            "BRAID_GATEWAY_LIVE_TIMEOUT_MS": "2000", "BRAID_GATEWAY_ADMIN_PORT": "\(try Ports.free())",
        ])
        return (try await BraidService.gateway(in: target.run, name: "dead-backend-gateway", environment: environment), port)
    }
}

/// `/readyz` is public (load balancers probe it): it says which dependency is down, never
/// where it is or what it answered.
struct ReadyzLeakAttack: AttackScenario {
    let name = "leak-readyz"

    func run(against target: AttackTarget) async throws -> AttackVerdict {
        var checks = AttackChecks()
        let ready = try await target.request("/readyz")
        checks.expect(ready.status == 200, "/readyz of the healthy gateway: \(ready.status)")
        let (dead, port) = try await ErrorBodyLeakAttack.gatewayWithDeadBackend(target)
        let down = try await target.request("/readyz", base: dead.baseURL)
        await dead.stop()
        checks.expect(down.status == 503, "/readyz with the live backend down: \(down.status)")
        let states = (down.json?["checks"] as? [String: String]) ?? [:]
        checks.expect(Set(states.values).isSubset(of: ["ok", "timeout", "unavailable"]) && states["live"] != "ok", "checks: \(states)")
        for response in [ready, down] {
            let found = (target.internals + ["\(port)", "rank", "onnect", "refused"]).filter { response.text.contains($0) }
            checks.expect(found.isEmpty, "/readyz mentions \(found): \(response.text)")
        }
        return checks.verdict("healthy \(ready.status), live down \(down.status) \(states.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")); no address")
    }
}

/// A mistyped secret property (`BRAID_KAFKA_PROPERTY_SASL_PASSWROD`) is refused at start,
/// naming the property and never the password it holds.
struct KafkaPropertyLeakAttack: AttackScenario {
    let name = "leak-kafka-property"

    func run(against target: AttackTarget) async throws -> AttackVerdict {
        var checks = AttackChecks()
        let password = "pw-\(AttackTarget.Secrets.random())"
        var outputs: [String] = []
        for command in ["gateway", "worker"] {
            let (status, output) = try await target.attemptStart(
                command, ["BRAID_KAFKA_PROPERTY_SASL_PASSWROD": password, "BRAID_GATEWAY_PORT": "\(try Ports.free())", "BRAID_GATEWAY_ADMIN_PORT": "\(try Ports.free())", "BRAID_WORKER_METRICS_PORT": "\(try Ports.free())"],
                name: "kafka-property-\(command)")
            checks.expect(status != nil && status != 0, "the \(command) started with an unknown property (status \(String(describing: status)))")
            checks.expect(output.contains("sasl.passwrod"), "the \(command)'s refusal does not name the property: \(output.suffix(300))")
            checks.expect(!output.contains(password) && !output.contains(String(password.dropFirst(3).prefix(12))), "the \(command)'s refusal echoes the password")
            outputs.append(output)
        }
        let echoed = outputs.filter { $0.contains(password) }.count
        return checks.verdict("gateway and worker refused naming sasl.passwrod; value echoed in \(echoed)/2 outputs")
    }
}
