import BraidContracts
import BraidCore
import BraidObservability
import BraidSources
import Foundation
import Metrics

extension SearchService {
    /// A page of a team-draft multileave arm: the live ranking (team 0) and the arm's cached
    /// rankings (teams 1…), planned in closed form by ``MultileavePlanner``. Like two-ranking
    /// pages, each cached ranking's snapshot is pinned by the cursor (one version each), the
    /// live query excludes every placed cached document (and, on a walk's later pages, every
    /// live document the walk showed), and the impression id carries each slot's team and the
    /// list's credit window.
    func multileavePage(
        _ parameters: SearchParameters, arm: InterleavingArm, query: String, position: Position, now: Date
    ) async throws(GatewayError) -> SearchPage {
        let secondaries: [SecondaryRanking]
        var record: RecordRead?
        if position.readsRecord, position.walk.firstPageIDs == nil {
            async let reading = readRecord(position.walk)
            secondaries = try await multileaveSecondaries(arm: arm, query: query, position: position, now: now)
            record = await reading
        } else {
            secondaries = try await multileaveSecondaries(arm: arm, query: query, position: position, now: now)
        }
        let snapshots = secondaries.map { $0.snapshot?.documents ?? [] }
        let draft = MultileaveDraft(configuration: arm.multileaveConfiguration, rankings: snapshots.map { $0.map(\.id) }, seed: position.seed)

        // The live range as if the live ranking were endless; A's side then bounds the list.
        let open = draft.planner(liveTotal: nil).plan(offset: position.offset, size: position.size)
        let side = try await pager(for: position, record: record, vouched: nil, now: now)
            .side(query: parameters.query, placed: draft.placedIDs, open: open.liveRange)
        let planner = draft.planner(liveTotal: side.total)
        let plan = planner.plan(offset: position.offset, size: position.size)
        let items = plan.slots.compactMap { slot -> SearchPage.Item? in
            if slot.team == 0 {
                let index = slot.index - side.from
                guard side.hits.indices.contains(index), let hit = side.hits[index] else { return nil }
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
        var nextCursor: String?
        if plan.end.map({ nextOffset >= $0 }) != true {
            nextCursor = await self.nextCursor(
                SearchCursor(
                    snapshots: .multileave(versions), offset: nextOffset, pageSize: position.size, configurationHash: arm.configurationHash,
                    seed: position.seed, queryHash: QueryNormalizer.hash(query),
                    expiresAt: Int64(now.timeIntervalSince1970) + Int64(cursorTTLSeconds)),
                position: position, side: side, shown: items.filter { $0.teamIndex == 0 }.map(\.id),
                exhausted: side.total <= planner.counts(before: nextOffset).live)
        }
        let degraded = secondaries.contains(where: \.degraded)
        if degraded { Counter(.gatewayDegradedPages).increment() }
        let impression = items.isEmpty ? nil : impressions.encode(ImpressionToken(
            experiment: arm.name, offset: position.offset, slotTeams: items.map { $0.teamIndex ?? 0 }, teamCount: arm.multileave.count + 1,
            creditWindow: planner.creditWindow, nonce: UInt64.random(in: 0...UInt64.max), issuedAt: Int64(now.timeIntervalSince1970),
            userKey: impressions.userKey(user: parameters.user, session: parameters.session),
            snapshotAgeSeconds: secondaries.first?.snapshot.map { Self.ageSeconds(of: $0, now: now) },
            component: parameters.component))
        let configuration = arm.configuration
        return SearchPage(
            query: parameters.query, page: position.offset / position.size + 1, perPage: position.size, items: items,
            nextCursor: nextCursor, total: plan.end, totalIsLowerBound: side.totalIsLowerBound && plan.end != nil,
            interleaving: .init(
                ranking: nil, snapshot: nil, start: configuration.start, pattern: configuration.patternString,
                mode: configuration.mode.rawValue, maxDocs: configuration.maxDocs, arm: arm.name,
                multileave: arm.multileave, snapshots: versions),
            degraded: degraded, walk: side.mode.name, impressionID: impression)
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
                    let pin = position.pin(ofTeam: team + 1)
                    do throws(GatewayError) {
                        let secondary: SecondaryRanking
                        if let known = knownSecondaryRanking(arm: single, query: query, pin: pin, now: now) {
                            secondary = known
                        } else {
                            secondary = try await secondaryRanking(arm: single, query: query, pin: pin, now: now)
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
