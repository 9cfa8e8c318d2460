import BraidCore
import BraidHarness
import BraidDevSupport
import Foundation

/// A producer (or a forger with access to the topic) publishes a ranking request and a
/// component request dated 9999-12-31 with a 30-day TTL. Stored, their versions would outrank
/// every later request for the same keys, freezing both until someone purged them. The worker
/// must dead-letter both with the reason, store nothing dated in the future (`braid ops
/// future` finds nothing), and still materialize a request of today for the same ranking.
struct FutureRequestAttack: AttackScenario {
    let name = "request-from-the-future"

    func run(against target: AttackTarget) async throws -> AttackVerdict {
        var checks = AttackChecks()
        let tag = UUID().uuidString.prefix(8).lowercased()
        let query = "future \(tag)"
        let user = "u-future-\(tag)"
        let lines = [
            #"{"schema":"braid.request/v1","id":"\#(UUID().uuidString.lowercased())","kind":"ranking","ranking":{"id":"featured","query":"\#(query)"},"ttl_seconds":2592000,"requested_at":"9999-12-31T23:59:59Z"}"#,
            #"{"schema":"braid.request/v1","id":"\#(UUID().uuidString.lowercased())","kind":"component","component":{"feed":"home","type":"recommended_recipes","scope":{"user":"\#(user)"}},"ttl_seconds":2592000,"requested_at":"9999-12-31T23:59:59Z"}"#,
        ]
        let file = target.run.file("future-\(tag).jsonl")
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: file)
        let environment = target.environment
        let published = try await runOffPool { try BraidBinary.run(["publish", "--file", file.path], environment: environment) }
        checks.expect(published.status == 0, "braid publish: \(published.status) \(published.stderr.suffix(300))")

        // Both dead-lettered, with the reason.
        let reason = "ahead of this worker's clock"
        var lettered = 0
        let deadline = ContinuousClock.now + .seconds(60)
        while lettered < 2, ContinuousClock.now < deadline {
            let list = try await runOffPool {
                try BraidBinary.run(["ops", "dlq", "list", "--reason-contains", reason, "--reason-width", "300", "--timeout", "20"], environment: environment)
            }
            // Only this scenario's requests are dead-lettered for this reason.
            lettered = list.stdout.firstMatch(of: /(\d+) of \d+ dead letters/).flatMap { Int($0.output.1) } ?? 0
            if lettered < 2 { try await Task.sleep(for: .milliseconds(500)) }
        }
        checks.expect(lettered == 2, "\(lettered) of 2 future requests in the dead-letter topic with '\(reason)'")

        // Nothing dated in the future was stored.
        let future = try await runOffPool { try BraidBinary.run(["ops", "future"], environment: environment) }
        checks.expect(future.status == 0, "braid ops future found entries: \(future.stdout.suffix(300))")

        // A request of today for the same ranking is materialized.
        let today = try await runOffPool {
            try BraidBinary.run(["publish", "--ranking", "featured", "--query", query], environment: environment)
        }
        checks.expect(today.status == 0, "publishing today's request: \(today.stderr.suffix(200))")
        var shown = ""
        let materialized = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < materialized {
            let show = try await runOffPool { try BraidBinary.run(["ops", "snapshot", "show", "featured", query, "--json"], environment: environment) }
            shown = show.stdout
            if show.status == 0 { break }
            try await Task.sleep(for: .milliseconds(500))
        }
        let version = (try? JSONSerialization.jsonObject(with: Data(shown.utf8)) as? [String: Any])?["current_version"] as? Int64
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        checks.expect(version.map { $0 <= now } == true, "today's request materialized with version \(String(describing: version))")
        return checks.verdict(
            "\(lettered)/2 requests dated 9999-12-31 dead-lettered (\(reason)); none stored; today's request materialized "
                + "as version \(version.map(String.init) ?? "none")")
    }
}
