import BraidConfig
import BraidContracts
import BraidCore
import BraidGateway
import BraidTestSupport
import Foundation
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

/// A multileaved session through the gateway, real Redis and broker: the live ranking and two
/// cached rankings in one list, walked to its end by cursor, then credited by a worker.
@Suite("Multileave sessions", .serialized, .integration)
struct MultileaveSessionTests {
    /// The items of a session's pages, checked to be a consistent walk: every document once,
    /// positions contiguous, page 1's total their count.
    static func walkedItems(_ pages: [JSONBody], sourceLocation: SourceLocation = #_sourceLocation) -> [[String: Any]] {
        let items = pages.flatMap { $0["items"] as? [[String: Any]] ?? [] }
        let ids = items.compactMap { $0["id"] as? String }
        #expect(ids.count == items.count && Set(ids).count == ids.count, "a document shown twice: \(ids)", sourceLocation: sourceLocation)
        #expect(
            items.compactMap { $0["position"] as? Int } == Array(0..<items.count), "positions are not contiguous",
            sourceLocation: sourceLocation)
        #expect(pages.first?["total"] as? Int == items.count, "\(String(describing: pages.first?["total"]))", sourceLocation: sourceLocation)
        return items
    }

    @Test("Every document once, pages planned alone equal the cursor walk, clicks credit every pair of the three teams")
    func walkAMultileavedSessionAndCreditIt() async throws {
        let fixture = try await WorkerFixture(documents: 300, users: 5)
        var configuration = GatewayHarness.configuration(fixture)
        // max_docs 5: five documents of each cached ranking, so the live ranking keeps some of the
        // query's matches and every round of the first five has all three teams.
        configuration.interleaving.arms = [.init(name: "multi-exp", weight: 100, maxDocs: 5, mode: .teamDraft, multileave: ["featured", "fresh"])]
        let worker = try await fixture.startWorker("multileave-worker")
        defer { worker.signal(SIGTERM) }
        try await GatewayHarness.with(configuration) { client, _ in
            var pages: [JSONBody] = [try await client.json("/v1/search?q=chicken&per_page=7&session=m1")]
            while let next = pages.last?["next_cursor"] as? String {
                try #require(pages.count < 200, "the session does not end")
                pages.append(try await client.json("/v1/search?q=chicken&cursor=\(encoded(next))"))
            }
            for page in pages { #expect(page.status == 200, "\(page.object)") }
            let items = Self.walkedItems(pages)
            let teams = items.compactMap { $0["team_index"] as? Int }
            #expect(teams.count == items.count && Set(teams) == [0, 1, 2], "every team drafts: \(teams)")
            for item in items {
                #expect((item["team"] as? String == "A") == (item["team_index"] as? Int == 0), "\(item)")
            }
            let interleaving = try #require(pages[0]["interleaving"] as? [String: Any])
            #expect(interleaving["multileave"] as? [String] == ["featured", "fresh"], "\(interleaving)")
            // Pages planned alone (page numbers, same session, same snapshots) equal the walk.
            for number in [2, 4] where number <= pages.count {
                let alone = try await client.json("/v1/search?q=chicken&per_page=7&page=\(number)&session=m1")
                let walked = (pages[number - 1]["items"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
                #expect((alone["items"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String } == walked, "page \(number)")
            }

            // Page 1 from the start: a click on team 2's first item inside the credit window.
            let first = pages[0]
            let id = try #require(first["impression_id"] as? String, "a multileave page without impression_id")
            let firstItems = try #require(first["items"] as? [[String: Any]])
            let clicked = try #require(firstItems.first { $0["team_index"] as? Int == 2 }?["position"] as? Int, "no team-2 item on page 1")
            let body = try JSONSerialization.data(withJSONObject: ["events": [
                ["type": "impression", "impression_id": id], ["type": "click", "impression_id": id, "position": clicked],
            ]])
            let accepted = try JSONBody(try await client.execute(uri: "/v1/events", method: .post, body: ByteBuffer(bytes: body)))
            #expect(accepted["accepted"] as? Int == 2, "\(accepted.object)")
            let deadline = ContinuousClock.now + .seconds(60)
            var outcome = try await client.json("/v1/experiments/multi-exp")
            func pair(_ first: Int, _ second: Int) -> [String: Any]? {
                (outcome["pairs"] as? [[String: Any]])?.first { $0["first"] as? Int == first && $0["second"] as? Int == second }
            }
            while pair(1, 2)?["wins_second"] as? Int != 1 {
                try #require(ContinuousClock.now < deadline, "the click was not credited to team 2: \(outcome.object)")
                try await Task.sleep(for: .milliseconds(200))
                outcome = try await client.json("/v1/experiments/multi-exp")
            }
            #expect(outcome["teams"] as? Int == 3 && outcome["impressions"] as? Int == 1, "\(outcome.object)")
            #expect(pair(0, 2)?["wins_second"] as? Int == 1, "\(outcome.object)")
            #expect(pair(0, 1)?["ties"] as? Int == 1, "teams 0 and 1 had no click: a tie. \(outcome.object)")
            // The pairs the click moved have it in their own breakdowns: a search page, of snapshots
            // computed moments ago. (0, 1), a tie, is the top level's.
            for (first, second) in [(0, 2), (1, 2)] {
                let surfaces = pair(first, second)?["surfaces"] as? [[String: Any]] ?? []
                #expect(surfaces.map { $0["surface"] as? String } == ["search"], "\(first)-\(second): \(surfaces)")
                #expect(surfaces.map { entry in ["impressions", "wins_a", "wins_b", "ties"].map { entry[$0] as? Int ?? -1 } } == [[1, 0, 1, 0]], "\(surfaces)")
                let ages = pair(first, second)?["freshness"] as? [[String: Any]] ?? []
                #expect(ages.compactMap { $0["bucket"] as? String } == SnapshotAge.allCases.map(\.rawValue), "\(ages)")
                let counted = ages.filter { $0["impressions"] as? Int != 0 }
                #expect(counted.map { $0["bucket"] as? String } == ["under_15m"] && counted.first?["wins_b"] as? Int == 1, "\(ages)")
            }
            #expect(
                (pair(0, 1)?["surfaces"] as? [[String: Any]])?.map { $0["ties"] as? Int } == [1] && pair(0, 1)?["freshness"] is [Any],
                "\(outcome.object)")
            let served = try JSONSerialization.data(withJSONObject: outcome.object)
            let verdict = try OpenAPIValidator.validate(served, against: .response(path: "/v1/experiments/{id}", method: "GET", status: 200))
            #expect(verdict == nil, "\(verdict ?? "")")
            // The sequential reading: three pairs decided by Holm's procedure, each with its own reading.
            let sequential = try #require(outcome["sequential"] as? [String: Any], "\(outcome.object)")
            #expect(sequential["correction"] as? String == "holm" && sequential["decision"] as? String == "keep going", "\(sequential)")
            for (first, second) in [(0, 1), (0, 2), (1, 2)] {
                let reading = pair(first, second)?["sequential"] as? [String: Any]
                #expect(reading?["decision"] as? String == "keep going" && reading?["look"] as? Int == 0, "\(first)-\(second): \(String(describing: reading))")
            }
        }
    }

    @Test("A cached ranking without a snapshot sits out: pages are served, the walk is whole, the session stays without it")
    func missingSnapshotTeamSitsOut() async throws {
        let fixture = try await WorkerFixture(documents: 300, users: 5)
        // Only `featured` has a snapshot for "chicken": a gateway with the default (inline) miss
        // policy and its default ranking computes it.
        try await GatewayHarness.with(GatewayHarness.configuration(fixture)) { client, _ in
            let page = try await client.json("/v1/search?q=chicken&per_page=5&session=warm")
            try #require(page.status == 200 && (page["interleaving"] as? [String: Any])?["snapshot"] is NSNumber, "\(page.object)")
        }
        var configuration = GatewayHarness.configuration(fixture)
        // Async misses and no worker: `fresh` is requested but never computed during the walk.
        configuration.interleaving.missPolicy = .async
        configuration.interleaving.arms = [.init(name: "multi-exp", weight: 100, maxDocs: 5, mode: .teamDraft, multileave: ["featured", "fresh"])]
        let firstCursor = try await GatewayHarness.with(configuration) { client, _ in
            var pages: [JSONBody] = [try await client.json("/v1/search?q=chicken&per_page=7&session=m1")]
            while let next = pages.last?["next_cursor"] as? String {
                try #require(pages.count < 200, "the session does not end")
                pages.append(try await client.json("/v1/search?q=chicken&cursor=\(encoded(next))"))
            }
            for page in pages {
                #expect(page.status == 200, "\(page.object)")
                #expect(page["degraded"] as? Bool == false, "a missing snapshot is not an outage: \(page.object)")
                let interleaving = page["interleaving"] as? [String: Any]
                let versions = interleaving?["snapshots"] as? [Any]
                #expect(versions?.count == 2 && versions?[0] is NSNumber && versions?[1] is NSNull, "\(String(describing: interleaving))")
            }
            let items = Self.walkedItems(pages)
            // The live ranking and `featured` draft; `fresh`, with nothing to pick, never does.
            let teams = items.compactMap { $0["team_index"] as? Int }
            #expect(teams.count == items.count && Set(teams) == [0, 1], "teams: \(teams)")
            #expect(teams.filter { $0 == 1 }.count == 5, "max_docs 5 of featured placed: \(teams)")
            let alone = try await client.json("/v1/search?q=chicken&per_page=7&page=2&session=m1")
            #expect(
                (alone["items"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
                    == (pages[1]["items"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }, "page 2 planned alone")
            return try #require(pages[0]["next_cursor"] as? String)
        }

        // `fresh` appears (computed inline by a gateway whose default ranking it is). The session
        // pinned no version for it and goes on without it; a new session drafts it.
        var fresh = GatewayHarness.configuration(fixture)
        fresh.interleaving.ranking = "fresh"
        try await GatewayHarness.with(fresh) { client, _ in
            let page = try await client.json("/v1/search?q=chicken&per_page=5&session=warm")
            try #require(page.status == 200 && (page["interleaving"] as? [String: Any])?["snapshot"] is NSNumber, "\(page.object)")
        }
        try await GatewayHarness.with(configuration) { client, _ in
            let resumed = try await client.json("/v1/search?q=chicken&cursor=\(encoded(firstCursor))")
            #expect(resumed.status == 200, "\(resumed.object)")
            #expect((resumed["items"] as? [[String: Any]])?.contains { $0["team_index"] as? Int == 2 } == false, "\(resumed.object)")
            let versions = (resumed["interleaving"] as? [String: Any])?["snapshots"] as? [Any]
            #expect(versions?[1] is NSNull, "the session stays pinned to no fresh snapshot: \(String(describing: versions))")
            let newSession = try await client.json("/v1/search?q=chicken&per_page=7&session=m2")
            let newVersions = (newSession["interleaving"] as? [String: Any])?["snapshots"] as? [Any]
            #expect(newVersions?.count == 2 && newVersions?.allSatisfy { $0 is NSNumber } == true, "\(newSession.object)")
            #expect((newSession["items"] as? [[String: Any]])?.contains { $0["team_index"] as? Int == 2 } == true, "\(newSession.object)")
        }
    }
}
