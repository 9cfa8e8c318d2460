import BraidHarness
import BraidDevSupport
import Foundation
import NIOCore

/// Eight expensive searches in parallel, without pause, beside a normal one (`curry rice`):
/// the normal search's p99 under attack must stay within twice its p99 alone (the cost of one
/// query is bounded). A gateway of its own serves them, over a corpus of the demo's size (20,000
/// recipes; the suite's shared corpus has 2,000, where no query is expensive) and a Redis key
/// prefix of its own.
///
/// The expensive searches are the shapes an unbounded matcher pays most for: one- and
/// two-letter tokens, which as prefixes would match most of the corpus (all of it ranked and
/// counted), and queries of many such tokens (each prefix merging every word starting with it).
/// The attackers are wrk's connections (a C client, so that the attack's own CPU on the two
/// cores is small, as an attacker's machine costs a server nothing); the normal search is
/// measured one request at a time with a client of its own. Broad queries wait in line
/// (`gateway.broad_search_concurrency`, 1), which is what keeps the normal query's share.
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
        do {
            // Every query once, so that pages are computed with their snapshot in place.
            for query in Self.expensive + ["curry rice"] {
                _ = try await HTTPProbe.request("\(base)/v1/search?q=\(query.replacingOccurrences(of: " ", with: "+"))&per_page=10", timeout: .seconds(30))
            }
            _ = try await Self.measure(base + Self.normal, count: 20)
            let alone = try await Self.measure(base + Self.normal, count: samples)
            // The attackers are wrk's connections: a client in C costs the two cores little,
            // as an attacker's machine costs the server nothing. Stopped with SIGINT, wrk
            // prints what it sent.
            let script = target.run.file("expensive-queries.lua")
            try Self.attackScript.write(to: script, atomically: true, encoding: .utf8)
            let output = target.run.file("expensive-queries-wrk.txt")
            let wrk = try await target.run.start(
                try Toolchain.find("wrk"), ["-t1", "-c\(attackers)", "-d600s", "-s", script.path, base + "/"], logFile: output)
            // The attack at full pace before measuring.
            try await Task.sleep(for: .seconds(1))
            let attackStart = ContinuousClock.now
            let loaded = try await Self.measure(base + Self.normal, count: samples)
            let attackSeconds = attackStart.duration(to: .now) / .seconds(1)
            wrk.signal(SIGINT)
            _ = await wrk.waitForExit(timeout: .seconds(10))
            target.run.forget(wrk)
            await target.run.stop(gateway.process)
            let report = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
            let sent = Self.requestsSent(report) ?? 0
            let refused = Self.figure(report, after: "Non-2xx or 3xx responses:") ?? 0
            let seconds = Self.figure(report, after: "requests in ", suffix: "s,") ?? (attackSeconds + 1)

            let ratio = loaded.p99 / alone.p99
            checks.expect(loaded.failures == 0 && alone.failures == 0, "normal searches not 200: \(alone.failures) alone, \(loaded.failures) under attack")
            checks.expect(sent > Double(attackers) * attackSeconds, "the attackers sent only \(Int(sent)) searches in \(seconds) s: \(report.suffix(400))")
            checks.expect(ratio <= 2, String(format: "normal p99 %.1f ms under attack is %.2f× its %.1f ms alone (limit 2×)", loaded.p99, ratio, alone.p99))
            let figure = String(format: "normal p99 %.1f ms under ", loaded.p99) + "\(attackers)"
                + String(
                    format: " parallel expensive searches vs %.1f ms alone: %.2f× (limit 2×; p50 %.1f vs %.1f ms); attackers %.0f searches/s, %.0f of %.0f answered other than 200",
                    alone.p99, ratio, loaded.p50, alone.p50, sent / max(seconds, 0.001), refused, sent)
            return checks.verdict(figure)
        } catch {
            await target.run.stop(gateway.process)
            throw error
        }
    }

    /// wrk's script: the expensive searches in turn on every connection.
    static var attackScript: String {
        let paths = expensive.map { "\"/v1/search?q=\($0.replacingOccurrences(of: " ", with: "+"))&per_page=10\"" }
        return "local paths = {" + paths.joined(separator: ", ") + "}\n" + """
            local i = 0
            request = function()
              i = i % #paths + 1
              return wrk.format("GET", paths[i])
            end

            """
    }

    /// The requests wrk's report says it sent (`3217 requests in 3.10s, …`).
    static func requestsSent(_ report: String) -> Double? {
        report.split(separator: "\n").first { $0.contains(" requests in ") }
            .flatMap { $0.split(separator: " ").first }.flatMap { Double($0) }
    }

    /// The number after `label` in wrk's report (up to `suffix`, or the first space).
    static func figure(_ report: String, after label: String, suffix: String = " ") -> Double? {
        guard let range = report.range(of: label) else { return nil }
        let rest = report[range.upperBound...].drop { $0 == " " }
        guard let end = rest.range(of: suffix) else { return nil }
        return Double(rest[..<end.lowerBound])
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
}
