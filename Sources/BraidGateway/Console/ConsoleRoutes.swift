import BraidContracts
import BraidCore
import BraidSources
import Foundation
import Hummingbird

/// The console (`/console/`) and the read-only admin routes it draws from. Everything else
/// it shows comes from the public routes, exactly as an app would get it. Nothing here writes.
public struct ConsoleRoutes: Sendable {
    public let settings: ConsoleSettings
    public let history: ExperimentHistory
    public let workers: WorkerStatusCollector
    let search: SearchService
    /// The layout experiments' names, listed in the overview.
    let layoutExperiments: [String]

    public init(
        settings: ConsoleSettings, history: ExperimentHistory, workers: WorkerStatusCollector, search: SearchService, layoutExperiments: [String] = []
    ) {
        self.layoutExperiments = layoutExperiments.sorted()
        self.settings = settings
        self.history = history
        self.workers = workers
        self.search = search
    }

    /// Adds the console's routes to `guarded`: a router (or group) behind ``AdminAccess``.
    func add<Routes: RouterMethods<GatewayRequestContext>>(to guarded: Routes) {
        // The router ignores a trailing slash: this is /console/ too.
        guarded.get("/console") { _, _ in ConsoleAssets.page.response }
        // Signing in happens in AdminAccess, before this route; someone signed in already lands here.
        guarded.post("/console/session") { _, _ in Response(status: .seeOther, headers: [.location: "/console/"]) }
        guarded.get("/console/console.js") { _, _ in ConsoleAssets.script.response }
        guarded.get("/console/console.css") { _, _ in ConsoleAssets.style.response }
        guarded.get("/v1/admin/console") { _, _ in try JSONResponse.encode(overview()) }
        guarded.get("/v1/admin/sides") { request, _ in
            try JSONResponse.encode(try await sides(try QueryString.parse(request.uri.query)))
        }
        guarded.get("/v1/admin/experiments/:id/history") { _, context in
            let id = context.parameters.get("id") ?? ""
            guard Names.isValid(id) else { throw GatewayError.badRequest("an experiment id is \(Names.rule)", code: "invalid_parameter") }
            guard let samples = await history.samples(of: id) else {
                throw GatewayError.notFound("experiment '\(id)' is not a team-draft arm; sampled: \(history.experiments.joined(separator: ", "))")
            }
            return try JSONResponse.encode(
                ExperimentHistoryResponse(experiment: id, intervalMs: Int(settings.sampleInterval / .milliseconds(1)), samples: samples))
        }
        guarded.get("/v1/admin/workers") { _, _ in try JSONResponse.encode(await workers.status()) }
    }

    func overview() -> ConsoleOverview {
        let arms = search.arms.weightedArms.map { weighted in
            ConsoleOverview.Arm(
                name: weighted.arm.name, weight: weighted.weight, mode: weighted.arm.configuration.mode.rawValue,
                ranking: weighted.arm.ranking, multileave: weighted.arm.multileave, sampleSession: search.arms.sampleSession(for: weighted.arm.name))
        }
        return ConsoleOverview(
            rankings: settings.rankings.map { .init(name: $0.name, size: $0.size, refreshAfterSeconds: $0.refreshAfterSeconds) },
            defaultRanking: settings.defaultRanking, defaultPerPage: settings.defaultPerPage, arms: arms, feeds: settings.feeds,
            experiments: history.experiments, layoutExperiments: layoutExperiments,
            sampleIntervalMs: Int(settings.sampleInterval / .milliseconds(1)))
    }

    /// Ranking A (live, nothing excluded) and B (the current snapshot, or `version`), first
    /// `size` documents each. Reads only: a missing snapshot is reported, not requested.
    func sides(_ query: [String: String], now: Date = Date()) async throws -> RankingSides {
        guard let q = try SearchParameters.text(query["q"], name: "q", maxLength: SearchParameters.maxQueryLength),
            q.contains(where: { !$0.isWhitespace })
        else { throw GatewayError.badRequest("q is required (1 to \(SearchParameters.maxQueryLength) characters, not blank)", code: "invalid_parameter") }
        let ranking = try SearchParameters.text(query["ranking"], name: "ranking", maxLength: 64) ?? settings.defaultRanking
        guard settings.rankings.contains(where: { $0.name == ranking }) else {
            throw GatewayError.badRequest(
                "unknown ranking '\(ranking)'; configured: \(settings.rankings.map(\.name).joined(separator: ", "))", code: "unknown_ranking")
        }
        let size = try SearchParameters.integer(query["size"], name: "size", range: PageSize.range) ?? settings.defaultPerPage
        let version = try query["version"].map { raw throws(GatewayError) -> Int64 in
            guard let value = Int64(raw), value >= 0 else { throw .badRequest("version must be a snapshot version (an integer)", code: "invalid_parameter") }
            return value
        }
        async let live = search.liveRange(query: q, excluding: [], range: 0..<size)
        // Snapshots are keyed by the normalised query, as the search route reads them.
        let normalized = QueryNormalizer.normalize(q)
        let snapshot: RankingSnapshot?
        do {
            if let version {
                snapshot = try await search.snapshots.pinned(ranking: ranking, query: normalized, version: version)
            } else {
                snapshot = try await search.snapshots.current(ranking: ranking, query: normalized)
            }
        } catch {
            throw GatewayError.unavailable("the snapshot could not be read from Redis: \(error)", code: "redis_unavailable")
        }
        let a = try await live
        return RankingSides(
            query: q, ranking: ranking,
            a: .init(items: a.hits.map { .init(id: $0.id, score: $0.score, title: $0.fields["title"]?.stringValue) }, total: a.total),
            b: RankingSides.cached(snapshot, size: size, now: now))
    }
}
