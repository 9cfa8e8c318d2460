import BraidContracts
import BraidCore
import Foundation

/// `GET /v1/admin/console`: what the console's selectors offer.
struct ConsoleOverview: Sendable, Encodable {
    struct Ranking: Sendable, Encodable {
        var name: String
        var size: Int
        var refreshAfterSeconds: Int

        enum CodingKeys: String, CodingKey {
            case name, size
            case refreshAfterSeconds = "refresh_after_seconds"
        }
    }

    struct Arm: Sendable, Encodable {
        var name: String
        var weight: Int
        var mode: String
        var ranking: String
        var multileave: [String]
        /// A session id that the gateway's bucketing puts in this arm: the console passes it
        /// as `session` to see the arm's pages (nil if none of the tried ids lands there).
        var sampleSession: String?

        enum CodingKeys: String, CodingKey {
            case name, weight, mode, ranking, multileave
            case sampleSession = "sample_session"
        }
    }

    var rankings: [Ranking]
    var defaultRanking: String
    var defaultPerPage: Int
    var arms: [Arm]
    var feeds: [String]
    var experiments: [String]
    /// Layout experiments by name (`feeds.<name>.experiment`), drawn per variant.
    var layoutExperiments: [String] = []
    var sampleIntervalMs: Int

    enum CodingKeys: String, CodingKey {
        case rankings, arms, feeds, experiments
        case layoutExperiments = "layout_experiments"
        case defaultRanking = "default_ranking"
        case defaultPerPage = "default_per_page"
        case sampleIntervalMs = "sample_interval_ms"
    }
}

/// `GET /v1/admin/sides`: the two rankings an interleaved page is made of, each alone.
struct RankingSides: Sendable, Encodable {
    struct Document: Sendable, Encodable {
        var id: String
        var score: Double
        var title: String?
    }

    struct Live: Sendable, Encodable {
        var items: [Document]
        var total: Int
    }

    struct Cached: Sendable, Encodable {
        var version: Int64?
        var createdAt: String?
        var ageSeconds: Double?
        var documentCount: Int
        var items: [Document]

        enum CodingKeys: String, CodingKey {
            case version, items
            case createdAt = "created_at"
            case ageSeconds = "age_seconds"
            case documentCount = "document_count"
        }
    }

    var query: String
    var ranking: String
    var a: Live
    var b: Cached

    static func cached(_ snapshot: RankingSnapshot?, size: Int, now: Date) -> Cached {
        guard let snapshot else { return Cached(version: nil, createdAt: nil, ageSeconds: nil, documentCount: 0, items: []) }
        return Cached(
            version: snapshot.version, createdAt: snapshot.createdAt.formatted(.iso8601),
            ageSeconds: max(0, (now.timeIntervalSince(snapshot.createdAt) * 10).rounded() / 10), documentCount: snapshot.documents.count,
            items: snapshot.documents.prefix(size).map { Document(id: $0.id, score: $0.score, title: $0.fields["title"]?.stringValue) })
    }
}

/// `GET /v1/admin/experiments/{id}/history`.
struct ExperimentHistoryResponse: Sendable, Encodable {
    var experiment: String
    var intervalMs: Int
    var samples: [ExperimentHistory.Sample]

    enum CodingKeys: String, CodingKey {
        case experiment, samples
        case intervalMs = "interval_ms"
    }
}

extension ArmSelector {
    /// The first of `console-0`, `console-1`, … that lands in `arm` (nil after `tries`).
    public func sampleSession(for arm: String, tries: Int = 10_000) -> String? {
        (0..<tries).lazy.map { "console-\($0)" }.first { (try? self.arm(session: $0, ranking: nil))?.name == arm }
    }
}
