import BraidContracts
import BraidHarness
import BraidDevSupport
import Foundation
import NIOHTTP1

// Bounded work per caller: what one caller (or one caller with many names) can make Braid
// compute and store. Figures on the ATTACK lines; RELIABILITY.md records them.

extension AttackTarget {
    /// Sum of a metric's samples on the admin listener's `/metrics` whose labels contain `labels`.
    func metric(_ name: String, labels: String = "") async throws -> Double {
        let response = try await request("/metrics", token: secrets.adminToken, base: adminURL)
        var total = 0.0
        for line in response.text.split(separator: "\n") where line.hasPrefix(name) && !line.hasPrefix("#") {
            let rest = line.dropFirst(name.count)
            guard rest.first == " " || rest.first == "{", labels.isEmpty || rest.contains(labels),
                let value = line.split(separator: " ").last.flatMap({ Double($0) })
            else { continue }
            total += value
        }
        return total
    }

    /// Keys in the run's Redis (`DBSIZE`).
    func redisKeys() async throws -> Int {
        let output = try await ChildProcess.check(try Toolchain.find("redis-cli"), ["-p", "\(stack.redis.port)", "DBSIZE"])
        guard let count = Int(output.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw HarnessError.commandFailed("redis-cli DBSIZE", status: 0, output: output)
        }
        return count
    }

    /// Sends `count` requests, `width` at a time; returns the statuses in no particular order.
    func flood(_ count: Int, width: Int = 16, base: String? = nil, _ request: @escaping @Sendable (Int) async throws -> HTTPProbe.Response) async throws -> [Int] {
        try await withThrowingTaskGroup(of: Int.self) { group in
            var statuses: [Int] = []
            var next = 0
            while next < min(width, count) {
                let index = next
                group.addTask { try await request(index).status }
                next += 1
            }
            while let status = try await group.next() {
                statuses.append(status)
                if next < count {
                    let index = next
                    group.addTask { try await request(index).status }
                    next += 1
                }
            }
            return statuses
        }
    }
}

/// A random query: two random letters-and-digits words, never seen before.
private func randomQuery() -> String {
    let letters = Array("abcdefghijklmnopqrstuvwxyz0123456789")
    func word() -> String { String((0..<Int.random(in: 5...9)).map { _ in letters.randomElement()! }) }
    return "\(word()) \(word())"
}

/// 10,000 distinct random queries from many callers (rate limits off on a gateway of its own,
/// as an attacker with many addresses would see them): each is a snapshot miss, and only
/// admitted ones (seen `gateway.admission.threshold` times) may store keys. PASS iff Redis
/// grows by at most 200 keys.
struct RandomQueryFloodAttack: AttackScenario {
    let name = "random-query-flood"
    let queries = 10_000

    func run(against target: AttackTarget) async throws -> AttackVerdict {
        var checks = AttackChecks()
        let adminPort = try Ports.free()
        let gateway = try await BraidService.gateway(
            in: target.run, name: "gateway-unlimited", environment: target.environment([
                "BRAID_GATEWAY_RATE_LIMITS_ENABLED": "false", "BRAID_GATEWAY_ADMIN_PORT": "\(adminPort)",
            ]))
        let before = try await target.redisKeys()
        let statuses = try await target.flood(queries) { _ in
            try await target.request("/v1/search?q=\(randomQuery().replacingOccurrences(of: " ", with: "+"))&per_page=10", base: gateway.baseURL)
        }
        // The inline misses are written before their page is answered; give stray async writes a moment.
        try await Task.sleep(for: .seconds(1))
        let after = try await target.redisKeys()
        let ok = statuses.filter { $0 == 200 }.count
        checks.expect(ok == queries, "\(queries - ok) of \(queries) pages were not 200: \(Set(statuses).sorted())")
        checks.expect(after - before <= 200, "Redis grew by \(after - before) keys (at most 200)")
        // The control: a query asked for twice is admitted and stored.
        let repeated = randomQuery().replacingOccurrences(of: " ", with: "+")
        _ = try await target.request("/v1/search?q=\(repeated)&per_page=10", base: gateway.baseURL)
        let second = try await target.request("/v1/search?q=\(repeated)&per_page=10", base: gateway.baseURL)
        let stored = (second.json?["interleaving"] as? [String: Any])?["snapshot"] is Int
        checks.expect(stored, "a query asked for twice was not stored: \(second.text.prefix(160))")
        await gateway.stop()
        return checks.verdict(
            "\(queries) distinct random queries: DBSIZE \(before) -> \(after) (+\(after - before), at most 200); \(ok) pages 200; a repeated query stored: \(stored)")
    }
}

/// One batchGet naming the same component 20 times, for a user with nothing stored: PASS iff
/// the gateway made one live query (component cache misses, from its `/metrics`), not 20.
struct DuplicateBatchNamesAttack: AttackScenario {
    let name = "duplicate-batch-names"

    func run(against target: AttackTarget) async throws -> AttackVerdict {
        var checks = AttackChecks()
        let user = "dup-\(UInt32.random(in: 0...UInt32.max))"
        let token = try await target.issuer.token(for: user)
        let metric = MetricName.gatewayComponentCacheMisses.rawValue
        let before = try await target.metric(metric)
        let names = Array(repeating: "\"recommended\"", count: 20).joined(separator: ",")
        let response = try await target.request(
            "/v1/feeds/home/components:batchGet", method: .POST, body: #"{"components":[\#(names)],"timeout_ms":10000}"#, token: token)
        let after = try await target.metric(metric)
        let entries = (response.json?["components"] as? [[String: Any]]) ?? []
        checks.expect(response.status == 200, "batchGet: \(response.status) \(response.text.prefix(160))")
        checks.expect(entries.count == 20, "\(entries.count) entries for 20 names (one per name asked for)")
        checks.expect(after - before == 1, "\(Int(after - before)) live queries for 1 distinct name")
        return checks.verdict("20 copies of one name: \(Int(after - before)) live query (1 per distinct name), \(entries.count) entries")
    }
}

/// Components for 2,000 made-up users, each asked for once (each with a valid token: the
/// identity provider is not the defence here): every one is a miss served live; admission
/// lets a user's request reach the workers only once the user is seen again. PASS iff at most
/// 1 % of the users (sketch collisions) were published to braid.requests
/// (`braid_gateway_component_requests_total`), and a user seen twice is.
struct MadeUpUserFloodAttack: AttackScenario {
    let name = "made-up-user-flood"
    let users = 2_000

    func run(against target: AttackTarget) async throws -> AttackVerdict {
        var checks = AttackChecks()
        let run = UInt32.random(in: 0...UInt32.max)
        var tokens: [String] = []
        for index in 0..<users { tokens.append(try await target.issuer.token(for: "made-up-\(run)-\(index)")) }
        let metric = MetricName.gatewayComponentRequests.rawValue
        let before = try await target.metric(metric)
        let statuses = try await target.flood(users) { [tokens] index in
            try await target.request("/v1/feeds/home/components/recommended", token: tokens[index])
        }
        let published = Int(try await target.metric(metric) - before)
        let ok = statuses.filter { $0 == 200 }.count
        let bound = users / 100
        checks.expect(ok == users, "\(users - ok) of \(users) components were not 200: \(Set(statuses).sorted())")
        checks.expect(published <= bound, "\(published) requests published for \(users) made-up users (at most \(bound))")
        // The control: a user seen twice is requested from the workers.
        let again = try await target.issuer.token(for: "made-up-\(run)-again")
        let control = try await target.metric(metric)
        for _ in 0..<2 { _ = try await target.request("/v1/feeds/home/components/recommended", token: again) }
        let controlPublished = Int(try await target.metric(metric) - control)
        checks.expect(controlPublished == 1, "a user seen twice: \(controlPublished) requests published (1)")
        return checks.verdict(
            "\(users) made-up users once each: \(published) requests published to braid.requests (at most \(bound), 1 %); a user seen twice: \(controlPublished)")
    }
}

/// Callers over their rate: one verified user far over `per_identity`, then the address far
/// over `per_address` (401s for want of a token still cost it tokens). PASS iff both get 429s
/// with a whole-seconds Retry-After ≥ 1 and a JSON error, and a health check stays 200. Waits
/// for the address's bucket to refill before the next scenario.
struct OverRateCallerAttack: AttackScenario {
    let name = "over-rate-caller"

    func run(against target: AttackTarget) async throws -> AttackVerdict {
        var checks = AttackChecks()
        let token = try await target.issuer.token(for: "over-rate-\(UInt32.random(in: 0...UInt32.max))")
        let identityStatuses = try await target.flood(200) { _ in try await target.request("/v1/feeds/home", token: token) }
        let identityRefused = identityStatuses.filter { $0 == 429 }.count
        // The bucket refills while the flood's last answers come back (a token every 1/rate
        // seconds), so one request after it may be admitted: five at once, and one of them must
        // be refused with its Retry-After.
        let probes = try await withThrowingTaskGroup(of: HTTPProbe.Response.self) { group in
            for _ in 0..<5 { group.addTask { try await target.request("/v1/feeds/home", token: token) } }
            return try await group.reduce(into: [HTTPProbe.Response]()) { $0.append($1) }
        }
        let refusal = probes.first { $0.status == 429 } ?? probes[0]
        let retryAfter = refusal.headers.first { $0.0.lowercased() == "retry-after" }.flatMap { Int($0.1) }
        let code = (refusal.json?["error"] as? [String: Any])?["code"] as? String
        checks.expect(identityRefused > 0, "a user at 200 requests in a burst was never refused")
        checks.expect(refusal.status == 429 && (retryAfter ?? 0) >= 1 && code == "rate_limited",
            "over the limit: \(refusal.status), Retry-After \(retryAfter.map(String.init) ?? "none"), \(refusal.text.prefix(120))")

        let addressStatuses = try await target.flood(1_500, width: 32) { _ in try await target.request("/v1/feeds/home") }
        let addressRefused = addressStatuses.filter { $0 == 429 }.count
        checks.expect(addressRefused > 0, "an address at 1,500 requests in a burst was never refused")
        checks.expect(Set(addressStatuses).isSubset(of: [401, 429]), "statuses other than 401 and 429: \(Set(addressStatuses).sorted())")
        let health = try await target.request("/healthz")
        checks.expect(health.status == 200, "/healthz while the address is limited: \(health.status)")
        // Let the address's bucket refill (burst ÷ rate: 2 s by default) for the scenarios after this one.
        try await Task.sleep(for: .seconds(3))
        return checks.verdict(
            "a user: \(identityRefused)/200 refused (429, Retry-After \(retryAfter.map(String.init) ?? "none") s); an address: \(addressRefused)/1500 refused; /healthz \(health.status)")
    }
}
