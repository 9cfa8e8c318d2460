import BraidCore
import BraidSources
import Foundation
import Metrics

extension SearchService {
    /// A page of a team-draft multileave arm: the live ranking (team 0) and the arm's cached
    /// rankings (teams 1…), planned in closed form by ``MultileavePlanner``. Like two-ranking
    /// pages, each cached ranking's snapshot is pinned by the cursor (one version each), the
    /// live query excludes every placed cached document, and the impression id carries each
    /// slot's team and the list's credit window.
    func multileavePage(
        _ parameters: SearchParameters, arm: InterleavingArm, query: String, position: Position, now: Date
    ) async throws(GatewayError) -> SearchPage {
        let secondaries = try await multileaveSecondaries(arm: arm, query: query, position: position, now: now)
        let snapshots = secondaries.map { $0.snapshot?.documents ?? [] }
        let draft = MultileaveDraft(configuration: arm.multileaveConfiguration, rankings: snapshots.map { $0.map(\.id) }, seed: position.seed)

        // The live range as if the live ranking were endless; its answer's total then bounds the list.
        let open = draft.planner(liveTotal: nil).plan(offset: position.offset, size: position.size)
        let result = try await liveRange(query: parameters.query, excluding: draft.placedIDs, range: open.liveRange)
        let total = PageAssembler.effectiveTotal(
            reported: result.total, from: open.liveRange.lowerBound, requested: open.liveRange.count, received: result.hits.count)
        let planner = draft.planner(liveTotal: total)
        let plan = planner.plan(offset: position.offset, size: position.size)
        let items = plan.slots.compactMap { slot -> SearchPage.Item? in
            if slot.team == 0 {
                let index = slot.index - open.liveRange.lowerBound
                guard result.hits.indices.contains(index) else { return nil }
                let hit = result.hits[index]
                return SearchPage.Item(
                    id: hit.id, position: slot.position, team: .a, source: .live, score: hit.score, fields: hit.fields, teamIndex: 0)
            }
            let documents = snapshots[slot.team - 1]
            guard documents.indices.contains(slot.index) else { return nil }
            let document = documents[slot.index]
            return SearchPage.Item(
                id: document.id, position: slot.position, team: .b, source: .cached, score: document.score, fields: document.fields,
                teamIndex: slot.team)
        }

        let versions = secondaries.map(\.pinnedVersion)
        let nextOffset = position.offset + position.size
        let nextCursor: String? = plan.end.map { nextOffset >= $0 } == true ? nil : codec.encode(Cursor(
            snapshotVersion: nil, offset: nextOffset, pageSize: position.size, configurationHash: arm.configurationHash,
            seed: position.seed, queryHash: QueryNormalizer.hash(query),
            expiresAt: Int64(now.timeIntervalSince1970) + Int64(cursorTTLSeconds), multileaveVersions: versions))
        let degraded = secondaries.contains(where: \.degraded)
        if degraded { Counter(label: "braid_gateway_degraded_pages_total").increment() }
        let impression = items.isEmpty ? nil : impressions.encode(ImpressionToken(
            experiment: arm.name, offset: position.offset, slotTeams: items.map { $0.teamIndex ?? 0 }, teamCount: arm.multileave.count + 1,
            creditWindow: planner.creditWindow, nonce: UInt64.random(in: 0...UInt64.max)))
        let configuration = arm.configuration
        return SearchPage(
            query: parameters.query, page: position.offset / position.size + 1, perPage: position.size, items: items,
            nextCursor: nextCursor, total: plan.end,
            interleaving: .init(
                ranking: nil, snapshot: nil, start: configuration.start, pattern: configuration.patternString,
                mode: configuration.mode.rawValue, maxDocs: configuration.maxDocs, arm: arm.name,
                multileave: arm.multileave, snapshots: versions),
            degraded: degraded, impressionID: impression)
    }

    /// One snapshot per cached ranking, each read as a two-ranking arm of that ranking would
    /// (pinned to the cursor's version for it, else the current one; a stale one asks for a
    /// refresh), all at once in a task group: a page waits for its slowest read, not their sum.
    /// In the order of `arm.multileave` (team 1 first). A ranking without a snapshot is an
    /// empty ranking: its team sits every round out, and the cursor pins no version for it,
    /// so the rest of the session goes on without it.
    func multileaveSecondaries(
        arm: InterleavingArm, query: String, position: Position, now: Date
    ) async throws(GatewayError) -> [SecondaryRanking] {
        let reads = await withTaskGroup(of: (Int, Result<SecondaryRanking, GatewayError>).self) { group in
            for (team, ranking) in arm.multileave.enumerated() {
                group.addTask {
                    var single = arm
                    single.ranking = ranking
                    single.refreshAfterSeconds = arm.multileaveRefreshAfterSeconds[ranking] ?? arm.refreshAfterSeconds
                    var pinned = position.pinned
                    if let cursor = position.pinned {
                        pinned?.snapshotVersion = cursor.multileaveVersions.indices.contains(team) ? cursor.multileaveVersions[team] : nil
                    }
                    do throws(GatewayError) {
                        let secondary: SecondaryRanking
                        if let known = knownSecondaryRanking(arm: single, query: query, pinned: pinned, now: now) {
                            secondary = known
                        } else {
                            secondary = try await secondaryRanking(arm: single, query: query, pinned: pinned, now: now)
                        }
                        if secondary.stale { await misses.request(ranking: ranking, query: query, reason: "refresh") }
                        return (team, .success(secondary))
                    } catch {
                        return (team, .failure(error))
                    }
                }
            }
            var reads = [Result<SecondaryRanking, GatewayError>?](repeating: nil, count: arm.multileave.count)
            for await (team, read) in group { reads[team] = read }
            return reads
        }
        var secondaries: [SecondaryRanking] = []
        for read in reads {
            guard let read else { preconditionFailure("every team's read returns") }
            secondaries.append(try read.get())
        }
        return secondaries
    }
}
