import AsyncHTTPClient
import BraidHarness
import BraidTestSupport
import Foundation
import NIOCore
import NIOHTTP1
import Synchronization

/// Eight expensive searches in parallel, without pause, beside a normal one (`curry rice`):
/// the normal search's p99 under attack must stay within twice its p99 alone (issue 34, cost
/// per query). A gateway of its own serves them, over a corpus of the demo's size (20,000
/// recipes; the suite's shared corpus has 2,000, where no query is expensive) and a Redis key
/// prefix of its own.
///
/// The expensive searches are what cost the most before matching was bounded: one- and
/// two-letter tokens, each a prefix that matched most of the corpus (all of it ranked and
/// counted), and queries of many such tokens (each prefix merged every word starting with it).
/// The attackers use an HTTP client of their own, so that the normal search never waits for a
/// connection of theirs.
struct ExpensiveQueryAttack: AttackScenario {
    let name = "expensive-queries"
    let attackers = 8
    let samples = 300
    let documents = 20_000
    static let normal = "/v1/search?q=curry+rice&per_page=10"
    static let expensive = [
        "c", "s", "p", "b", "m", "t", "ch", "co", "sa", "po", "c s p b m t r o g h", "a e i o u y c s p b m t r g h l",
        "ch co ca cu sa so po pa", "c rice", "sp", "gr",
    ]

    func run(against target: AttackTarget) async throws -> AttackVerdict {
        var checks = AttackChecks()
        let corpus = target.run.file("expensive-queries-corpus.sqlite")
        _ = try await ChildProcess.check(
            BraidService.binary, ["seed", "--docs", "\(documents)", "--users", "50", "--db", corpus.path], timeout: .seconds(600))
        // The per-caller rate limits would refuse one address sending this much: they are off
        // here, so the scenario measures what a query costs (an attacker with many addresses).
        let gateway = try await BraidService.gateway(
            in: target.run, name: "gateway-expensive-queries",
            environment: target.environment([
                "BRAID_SEARCH_SQLITE_PATH": corpus.path, "BRAID_REDIS_KEY_PREFIX": "braid-expensive",
                // The suite's gateway holds its admin port.
                "BRAID_GATEWAY_ADMIN_PORT": "\(try Ports.free())", "BRAID_GATEWAY_RATE_LIMITS_ENABLED": "false",
            ]))
        let base = gateway.baseURL
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = 4 * attackers
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        do {
            // Every query once, so that pages are computed with their snapshot in place.
            for query in Self.expensive + ["curry rice"] {
                _ = try await HTTPProbe.request("\(base)/v1/search?q=\(query.replacingOccurrences(of: " ", with: "+"))&per_page=10", timeout: .seconds(30))
            }
            _ = try await Self.measure(base + Self.normal, count: 20)
            let alone = try await Self.measure(base + Self.normal, count: samples)
            let tally = Tally()
            let attack = (0..<attackers).map { worker in
                Task {
                    var index = worker
                    while !Task.isCancelled {
                        let query = Self.expensive[index % Self.expensive.count].replacingOccurrences(of: " ", with: "+")
                        index += 1
                        var request = HTTPClientRequest(url: "\(base)/v1/search?q=\(query)&per_page=10")
                        request.method = .GET
                        do {
                            let response = try await client.execute(request, timeout: .seconds(30))
                            _ = try await response.body.collect(upTo: 16 << 20)
                            tally.add(Int(response.status.code))
                        } catch {
                            tally.add(0)
                        }
                    }
                }
            }
            // The attack at full pace before measuring.
            try await Task.sleep(for: .seconds(1))
            let attackStart = ContinuousClock.now
            let sentBefore = tally.total
            let loaded = try await Self.measure(base + Self.normal, count: samples)
            let attackSeconds = attackStart.duration(to: .now) / .seconds(1)
            let sentDuring = tally.total - sentBefore
            for task in attack { task.cancel() }
            for task in attack { _ = await task.result }
            try await client.shutdown()
            await target.run.stop(gateway.process)

            let ratio = loaded.p99 / alone.p99
            checks.expect(loaded.failures == 0 && alone.failures == 0, "normal searches not 200: \(alone.failures) alone, \(loaded.failures) under attack")
            checks.expect(sentDuring > attackers, "the attackers sent only \(sentDuring) searches while the normal one was measured")
            checks.expect(ratio <= 2, String(format: "normal p99 %.1f ms under attack is %.2f× its %.1f ms alone (limit 2×)", loaded.p99, ratio, alone.p99))
            let statuses = tally.statuses.sorted { $0.key < $1.key }.map { "\($0.key == 0 ? "error" : "\($0.key)") ×\($0.value)" }.joined(separator: ", ")
            let figure = String(format: "normal p99 %.1f ms under ", loaded.p99) + "\(attackers)"
                + String(
                    format: " parallel expensive searches vs %.1f ms alone: %.2f× (limit 2×; p50 %.1f vs %.1f ms); attackers %.0f searches/s",
                    alone.p99, ratio, loaded.p50, alone.p50, Double(sentDuring) / max(attackSeconds, 0.001))
            return checks.verdict(figure + " (\(statuses))")
        } catch {
            try? await client.shutdown()
            await target.run.stop(gateway.process)
            throw error
        }
    }

    /// `count` GETs of `url` one after another: their p50 and p99 in milliseconds, and how many
    /// were not 200.
    static func measure(_ url: String, count: Int) async throws -> (p50: Double, p99: Double, failures: Int) {
        var milliseconds: [Double] = []
        var failures = 0
        for _ in 0..<count {
            let start = ContinuousClock.now
            let response = try await HTTPProbe.request(url, timeout: .seconds(30))
            milliseconds.append(start.duration(to: .now) / .milliseconds(1))
            if response.status != 200 { failures += 1 }
        }
        milliseconds.sort()
        let at = { (quantile: Double) in milliseconds[min(milliseconds.count - 1, Int((Double(milliseconds.count) * quantile).rounded(.up)) - 1)] }
        return (at(0.50), at(0.99), failures)
    }

    /// The attackers' answers by status (0: no answer).
    final class Tally: Sendable {
        private let counts = Mutex<[Int: Int]>([:])
        func add(_ status: Int) { counts.withLock { $0[status, default: 0] += 1 } }
        var total: Int { counts.withLock { $0.values.reduce(0, +) } }
        var statuses: [Int: Int] { counts.withLock { $0 } }
    }
}
