import BraidContracts
import BraidCore
import BraidHarness
import BraidDevSupport
import Foundation
import NIOHTTP1

/// Event stuffing and replays against the experiment `default` (team draft): one signed-in
/// caller loops search page, impression and click; then sends every batch again (replays);
/// then tries ids that must never count: a genuine id after its window
/// (`gateway.impression_window_seconds`, 4 s in this run), a tampered id, an id minted with the
/// development key, the user's id sent by another user and anonymously, and — as a gateway
/// would have issued them, so signed with this run's key — an id of format version 2 and one
/// issued in the future. Reports how much credit each step moved.
///
/// The loop itself is real traffic to the gateway and is credited; its volume is bounded by
/// the per-identity rate limits (429) of the limits middleware, not here.
struct EvidenceStuffingAttack: AttackScenario {
    let name = "evidence-stuffing"
    static let experiment = "default"
    static let loops = 20

    struct Outcome: CustomStringConvertible {
        var impressions = 0, winsA = 0, winsB = 0, ties = 0, duplicates = 0
        var rejected: [String: Int] = [:]

        init(_ json: [String: Any]?) {
            impressions = json?["impressions"] as? Int ?? -1
            winsA = json?["wins_a"] as? Int ?? -1
            winsB = json?["wins_b"] as? Int ?? -1
            ties = json?["ties"] as? Int ?? -1
            duplicates = json?["duplicates"] as? Int ?? -1
            for (reason, count) in json?["rejected"] as? [String: Any] ?? [:] { rejected[reason] = count as? Int ?? -1 }
        }

        /// What credit is made of; duplicates and rejections are not credit.
        var credit: [Int] { [impressions, winsA, winsB, ties] }
        var description: String { "impressions \(impressions), wins A \(winsA), wins B \(winsB), ties \(ties)" }
    }

    func outcome(_ target: AttackTarget) async throws -> Outcome {
        let response = try await target.request("/v1/experiments/\(Self.experiment)", token: target.secrets.adminToken, base: target.adminURL)
        return Outcome(response.json)
    }

    /// Polls until the workers have applied what `done` waits for (credit is asynchronous).
    func settled(_ target: AttackTarget, _ done: (Outcome) -> Bool) async throws -> Outcome {
        let deadline = ContinuousClock.now + .seconds(60)
        var current = try await outcome(target)
        while !done(current), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(250))
            current = try await outcome(target)
        }
        return current
    }

    func post(_ target: AttackTarget, _ events: [[String: Any]], token: String?) async throws -> HTTPProbe.Response {
        let body = String(decoding: try JSONSerialization.data(withJSONObject: ["events": events]), as: UTF8.self)
        return try await target.request("/v1/events", method: .POST, body: body, token: token)
    }

    func run(against target: AttackTarget) async throws -> AttackVerdict {
        var checks = AttackChecks()
        let alice = try await target.issuer.token(for: "u00001")
        let bob = try await target.issuer.token(for: "u00002")
        let before = try await outcome(target)

        // The query's snapshot may still be cold (a live-only page carries no impression id).
        let warm = ContinuousClock.now + .seconds(30)
        while try await target.request("/v1/search?q=chicken&per_page=10", token: alice).json?["impression_id"] == nil, ContinuousClock.now < warm {
            try await Task.sleep(for: .milliseconds(250))
        }

        // 1. The loop: page, impression, click on a B slot; and each batch sent again at once.
        var batches: [[[String: Any]]] = []
        var replaysAccepted = 0
        for index in 0..<Self.loops {
            // Three requests a loop, paced under the per-identity rate (20/s by default): the loop
            // is what a client within its limits can do; going faster only earns 429s
            // (`over-rate-caller`).
            if index > 0 { try await Task.sleep(for: .milliseconds(200)) }
            let page = try await target.request("/v1/search?q=chicken&per_page=10&page=\(index % 3 + 1)", token: alice)
            guard let id = page.json?["impression_id"] as? String,
                let b = (page.json?["items"] as? [[String: Any]])?.first(where: { $0["team"] as? String == "B" })?["position"] as? Int
            else {
                checks.expect(false, "page \(index): \(page.status) without an impression id and a B slot")
                continue
            }
            let events: [[String: Any]] = [["type": "impression", "impression_id": id], ["type": "click", "impression_id": id, "position": b]]
            let first = try await post(target, events, token: alice)
            checks.expect(first.status == 202, "loop \(index): \(first.status) \(first.text.prefix(160))")
            let replay = try await post(target, events, token: alice)
            checks.expect(replay.status == 202, "replay \(index): \(replay.status) \(replay.text.prefix(160))")
            if replay.status == 202 { replaysAccepted += 1 }
            batches.append(events)
        }
        let expectedDuplicates = before.duplicates + 2 * batches.count
        let looped = try await settled(target) { $0.duplicates >= expectedDuplicates && $0.impressions >= before.impressions + batches.count }
        // At least every replayed event; a message the producer retried counts as a duplicate too.
        checks.expect(looped.duplicates >= expectedDuplicates, "duplicates counted: \(looped.duplicates - before.duplicates) of \(2 * batches.count)")
        checks.expect(looped.impressions == before.impressions + batches.count, "each looped impression counted once: \(looped.impressions - before.impressions)")

        // 2. Ids that must move nothing.
        let genuine = batches.first?.first?["impression_id"] as? String ?? ""
        let codec = ImpressionCodec(key: Array(target.secrets.impressionKey.utf8))
        let development = ImpressionCodec(key: Array(ForgedCursorAttack.developmentImpressionKey.utf8))
        let now = Int64(Date().timeIntervalSince1970)
        func minted(_ codec: ImpressionCodec, issuedAt: Int64?) -> String {
            codec.encode(ImpressionToken(
                experiment: Self.experiment, offset: 0, teams: [.b, .b, .b], creditWindow: 0..<3, nonce: .random(in: 0...UInt64.max),
                issuedAt: issuedAt, userKey: codec.userKey(user: "u00001", session: nil)))
        }
        // A fresh page of alice's for the foreign-user attempts, well inside its 4 s window.
        let fresh = try await target.request("/v1/search?q=chicken&per_page=10", token: alice)
        let freshID = fresh.json?["impression_id"] as? String ?? ""
        let freshEvents: [[String: Any]] = [["type": "impression", "impression_id": freshID]]
        var tampered = Array(genuine)
        if !tampered.isEmpty { tampered[tampered.count / 2] = tampered[tampered.count / 2] == "A" ? "B" : "A" }
        let click = { (id: String) in [["type": "click", "impression_id": id, "position": 1] as [String: Any]] }
        let attempts: [(what: String, events: [[String: Any]], token: String?, status: Int, code: String)] = [
            ("tampered id", click(String(tampered)), alice, 400, "invalid_event"),
            ("id minted with the development key", click(minted(development, issuedAt: now)), alice, 400, "invalid_event"),
            ("alice's id sent by bob", freshEvents, bob, 403, "foreign_impression"),
            ("alice's id sent anonymously", freshEvents, nil, 403, "foreign_impression"),
            ("version-2 id (no issue time)", click(minted(codec, issuedAt: nil)), alice, 400, "impression_outdated"),
            ("id issued 1 h in the future", click(minted(codec, issuedAt: now + 3_600)), alice, 400, "impression_from_the_future"),
            ("genuine id after its window", batches.first ?? [], alice, 400, "impression_expired"),
        ]
        var refused = 0
        for (index, attempt) in attempts.enumerated() {
            // A genuine id once its window (4 s here) has passed; the others are sent before.
            if index == attempts.count - 1 { try await Task.sleep(for: .seconds(5)) }
            let response = try await post(target, attempt.events, token: attempt.token)
            let code = (response.json?["error"] as? [String: Any])?["code"] as? String
            checks.expect(response.status == attempt.status && code == attempt.code, "\(attempt.what): \(response.status) \(code ?? response.text)")
            if response.status == attempt.status, code == attempt.code { refused += 1 }
        }
        // Refused batches are never published; still, give a wrongly accepted event time to be
        // credited before reading the outcome (the worker credits within milliseconds).
        try await Task.sleep(for: .seconds(2))
        let after = try await outcome(target)
        checks.expect(after.credit == looped.credit, "invalid ids moved credit: \(looped) -> \(after)")
        let rejectedOnOutcome = ["expired", "from_the_future", "foreign_user", "outdated"].map { (after.rejected[$0] ?? 0) - (before.rejected[$0] ?? 0) }
        // Every refused event counts: the expired batch holds an impression and a click.
        checks.expect(rejectedOnOutcome == [2, 1, 2, 1], "rejections on the outcome (expired, future, foreign, outdated): \(rejectedOnOutcome)")
        let metrics = try await target.request("/metrics", token: target.secrets.adminToken, base: target.adminURL).text
        for reason in ["forged", "expired", "from_the_future", "foreign_user", "outdated"] {
            checks.expect(metrics.contains("braid_gateway_events_rejected_total{reason=\"\(reason)\"}"), "no rejected metric for \(reason)")
        }

        let moved = zip(looped.credit, before.credit).map { $0 - $1 }
        // Each looped impression is one unit of credit (a win or a tie): more means a replay counted.
        let replayCredit = (moved[0] - batches.count) + (moved[1] + moved[2] + moved[3] - batches.count)
        checks.expect(replayCredit == 0, "replays moved credit: \(replayCredit)")
        let invalidCredit = zip(after.credit, looped.credit).map { abs($0 - $1) }.reduce(0, +)
        return checks.verdict(
            "loop of \(batches.count) page+impression+click from one user moved impressions +\(moved[0]), wins B +\(moved[2]), "
                + "wins A +\(moved[1]), ties +\(moved[3]) (real pages; their rate is the limiter's); \(replaysAccepted)/\(batches.count) "
                + "replayed batches 202, \(looped.duplicates - before.duplicates) duplicates counted (\(2 * batches.count) replayed events), credit moved by replays \(replayCredit); "
                + "invalid ids \(refused)/\(attempts.count) refused, credit moved by them \(invalidCredit)")
    }
}
