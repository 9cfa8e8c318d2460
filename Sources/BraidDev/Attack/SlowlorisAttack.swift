import BraidCore
import BraidHarness
import BraidDevSupport
import Foundation
import NIOHTTP1

/// 500 slowloris sockets on the public port, each trickling a header line every 200 ms and
/// never finishing its head, while a normal page is requested beside them. The page must be
/// served promptly, and the header deadline (`http.header_timeout_ms`, 2 s in this run) must
/// close every slow socket however much it trickles.
struct SlowlorisAttack: AttackScenario {
    let name = "slowloris"
    let sockets = 500

    func run(against target: AttackTarget) async throws -> AttackVerdict {
        var checks = AttackChecks()
        let port = target.gateway.port ?? 0
        let count = sockets
        let slow = try await runOffPool { try SlowlorisSockets.open(count: count, port: port) }
        let opened = ContinuousClock.now
        let trickle = Task.detached {
            while !Task.isCancelled {
                slow.trickle()
                try? await Task.sleep(for: .milliseconds(200))
            }
        }
        defer {
            trickle.cancel()
            slow.close()
        }
        let token = try await target.issuer.token(for: "u00001")
        let start = ContinuousClock.now
        let page = try await target.request("/v1/search?q=curry&per_page=10")
        let feed = try await target.request("/v1/feeds/home/components/my-week", token: token)
        let served = start.duration(to: .now)
        let openWhileServed = slow.openCount
        checks.expect(page.status == 200 && feed.status == 200, "normal requests beside \(count) slow sockets: \(page.status), \(feed.status)")
        checks.expect(served < .seconds(5), "normal requests took \(served)")
        checks.expect(openWhileServed > count / 2, "only \(openWhileServed) slow sockets were open while the page was served: the attack did not hold")
        // Every slow socket is closed within the header deadline (plus slack for a loaded machine).
        let limit = target.headerTimeout + .seconds(5)
        var remaining = slow.openCount
        while remaining > 0, opened.duration(to: .now) < limit {
            try await Task.sleep(for: .milliseconds(100))
            remaining = slow.openCount
        }
        let closedAfter = opened.duration(to: .now)
        checks.expect(remaining == 0, "\(remaining) of \(count) slow sockets still open after \(closedAfter)")
        let ms = { (duration: Duration) in Int(duration / .milliseconds(1)) }
        return checks.verdict(
            "2 normal requests 200 in \(ms(served)) ms beside \(openWhileServed) open slow sockets; \(count - remaining)/\(count) closed \(ms(closedAfter)) ms after opening (header timeout \(ms(target.headerTimeout)) ms)")
    }
}

/// The admin surface from the public port: `/metrics`, the experiments, the console and its
/// `/v1/admin/*` routes are not there (404); on the admin listener they need the admin token
/// (401 without); the worker's `/metrics` needs it too.
struct AdminFromPublicAttack: AttackScenario {
    let name = "admin-from-public"
    static let paths = ["/metrics", "/v1/experiments/default", "/v1/admin/console", "/v1/admin/workers", "/v1/admin/sides?q=curry", "/console/"]

    func run(against target: AttackTarget) async throws -> AttackVerdict {
        var checks = AttackChecks()
        var publicStatuses: [Int] = []
        for path in Self.paths {
            // Even with the admin token: the public listener does not serve these at all.
            let response = try await target.request(path, token: target.secrets.adminToken)
            publicStatuses.append(response.status)
            checks.expect(response.status == 404, "\(path) on the public port: \(response.status)")
        }
        var adminWithout: [Int] = []
        for path in Self.paths {
            let refused = try await target.request(path, base: target.adminURL)
            let forged = try await target.request(path, token: AttackTarget.Secrets.random(), base: target.adminURL)
            let allowed = try await target.request(path, token: target.secrets.adminToken, base: target.adminURL)
            adminWithout.append(refused.status)
            checks.expect(refused.status == 401 && forged.status == 401, "\(path) on the admin port without the token: \(refused.status), \(forged.status)")
            checks.expect([200, 404].contains(allowed.status) && allowed.status != 401, "\(path) on the admin port with the token: \(allowed.status)")
        }
        let worker = try await HTTPProbe.request(target.workerMetricsURL)
        let workerAllowed = try await HTTPProbe.request(target.workerMetricsURL, headers: [("Authorization", "Bearer \(target.secrets.adminToken)")])
        checks.expect(worker.status == 401 && workerAllowed.status == 200, "the worker's /metrics: \(worker.status) without, \(workerAllowed.status) with the token")
        let notFound = publicStatuses.filter { $0 == 404 }.count
        let unauthorized = adminWithout.filter { $0 == 401 }.count
        return checks.verdict(
            "public port: \(notFound)/\(Self.paths.count) admin routes 404; admin port without token: \(unauthorized)/\(Self.paths.count) 401; worker /metrics \(worker.status) without token")
    }
}
