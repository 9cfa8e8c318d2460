import ArgumentParser
import BraidConfig
import BraidContracts
import BraidCore
import BraidPrecompute
import BraidRedis
import BraidWiring
import Foundation

/// `braid ops snapshot …`: look at, or remove, the materialized snapshot of one ranking and query.
struct OpsSnapshotCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "snapshot", abstract: "Inspect or purge the precomputed snapshot of a ranking and query.",
        subcommands: [OpsSnapshotShowCommand.self, OpsSnapshotPurgeCommand.self])
}

/// Keys and TTLs as `snapshot show` reports them.
struct SnapshotReport: Encodable {
    struct Document: Encodable {
        let id: String
        let score: Double
        let title: String?
    }

    /// Seconds left; -1 without expiry; nil for a missing key.
    static func seconds(_ ttl: RedisClient.TimeToLive) -> Int? {
        switch ttl {
        case .missing: nil
        case .persistent: -1
        case .seconds(let seconds): seconds
        }
    }

    let ranking: String
    let query: String
    let normalizedQuery: String
    let pointerKey: String
    let currentVersion: Int64?
    let pointerTTLSeconds: Int?
    let versionKey: String?
    let versionTTLSeconds: Int?
    let storedVersions: [Int64]
    let refreshMarker: Bool
    let createdAt: Date?
    let ageSeconds: Double?
    let requestID: String?
    let documentCount: Int?
    let documents: [Document]

    enum CodingKeys: String, CodingKey {
        case ranking, query, documents
        case normalizedQuery = "normalized_query"
        case pointerKey = "pointer_key"
        case currentVersion = "current_version"
        case pointerTTLSeconds = "pointer_ttl_seconds"
        case versionKey = "version_key"
        case versionTTLSeconds = "version_ttl_seconds"
        case storedVersions = "stored_versions"
        case refreshMarker = "refresh_marker"
        case createdAt = "created_at"
        case ageSeconds = "age_seconds"
        case requestID = "request_id"
        case documentCount = "document_count"
    }
}

/// `braid ops snapshot show RANKING QUERY`.
struct OpsSnapshotShowCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show", abstract: "Show the current snapshot of a ranking and query.",
        discussion: """
            Prints the normalised query, the current version, when it was created and its age, the TTLs \
            of the pointer and of the version key (-1: no expiry), every version still stored, the \
            document count and the first --documents documents. Exits 1 when no current snapshot exists.
            """)

    @OptionGroup var config: ConfigurationOption
    @Argument(help: "Secondary ranking, e.g. featured.") var ranking: String
    @Argument(help: "Query (normalised as the gateway and workers do).") var query: String
    @Option(help: "Documents to list.") var documents: Int = 10
    @Flag(help: "Print one JSON object instead of text.") var json = false

    func validate() throws {
        guard documents >= 0 else { throw ValidationError("--documents must be 0 or more") }
    }

    func run() async throws {
        let configuration = try config.loadForService()
        let (ranking, query, limit) = (ranking, query, documents)
        let report = try await withOpsRedis(configuration) { redis in
            try await Self.report(
                store: PrecomputeStore(redis: redis, keys: configuration.redis.cacheKeys), ranking: ranking, query: query, documents: limit)
        }
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            encoder.dateEncodingStrategy = .iso8601
            print(String(decoding: try encoder.encode(report), as: UTF8.self))
        } else {
            print(Self.text(report))
        }
        if report.currentVersion == nil || report.documentCount == nil { throw ExitCode(1) }
    }

    static func report(store: PrecomputeStore, ranking: String, query: String, documents limit: Int) async throws -> SnapshotReport {
        let keys = store.keys.ranking(ranking, query: query)
        let redis = store.redis
        let version = try await store.currentVersion(ranking: ranking, query: query)
        let pointerTTL = try await redis.ttl(keys.pointer)
        var snapshot: RankingSnapshot?
        var versionTTL: RedisClient.TimeToLive = .missing
        if let version {
            snapshot = try await store.snapshot(ranking: ranking, query: query, version: version)
            versionTTL = try await redis.ttl(keys.version(version))
        }
        let stored = try await redis.scanKeys(prefix: keys.versionPrefix)
            .compactMap { Int64($0.dropFirst(keys.versionPrefix.count)) }.sorted()
        let marker = try await redis.get(keys.refreshMarker) != nil
        return SnapshotReport(
            ranking: ranking, query: query, normalizedQuery: QueryNormalizer.normalize(query), pointerKey: keys.pointer,
            currentVersion: version, pointerTTLSeconds: SnapshotReport.seconds(pointerTTL),
            versionKey: version.map { keys.version($0) }, versionTTLSeconds: SnapshotReport.seconds(versionTTL),
            storedVersions: stored, refreshMarker: marker, createdAt: snapshot?.createdAt,
            ageSeconds: snapshot.map { (Date().timeIntervalSince($0.createdAt) * 10).rounded() / 10 }, requestID: snapshot?.requestID,
            documentCount: snapshot?.documents.count,
            documents: (snapshot?.documents.prefix(limit) ?? []).map {
                SnapshotReport.Document(id: $0.id, score: $0.score, title: $0.fields["title"]?.stringValue)
            })
    }

    /// `42.5 s` under two minutes, else `3d 4h 05m`.
    static func age(_ seconds: Double) -> String {
        guard seconds >= 120 else { return "\(seconds) s" }
        let minutes = Int(seconds / 60)
        let (days, hours, rest) = (minutes / 1_440, minutes / 60 % 24, minutes % 60)
        return (days > 0 ? "\(days)d " : "") + "\(hours)h " + (rest < 10 ? "0" : "") + "\(rest)m"
    }

    static func text(_ report: SnapshotReport) -> String {
        func ttl(_ seconds: Int?) -> String {
            switch seconds {
            case nil: "missing"
            case .some(-1): "no expiry"
            case let seconds?: "\(seconds) s"
            }
        }
        var lines = [
            "ranking:          \(report.ranking)",
            "query:            \(report.query) (normalised: \(report.normalizedQuery))",
            "pointer:          \(report.pointerKey) (ttl \(ttl(report.pointerTTLSeconds)))",
        ]
        guard let version = report.currentVersion else {
            lines.append("current version:  none (no snapshot materialized, or it expired)")
            return lines.joined(separator: "\n")
        }
        lines.append("current version:  \(version) (ttl \(ttl(report.versionTTLSeconds)))")
        lines.append("stored versions:  \(report.storedVersions.map(String.init).joined(separator: ", "))")
        lines.append("refresh marker:   \(report.refreshMarker ? "set" : "not set")")
        guard let count = report.documentCount, let createdAt = report.createdAt else {
            lines.append("snapshot:         missing (the version key expired; the pointer is stale)")
            return lines.joined(separator: "\n")
        }
        lines.append("created at:       \(createdAt.formatted(.iso8601)) (age \(age(report.ageSeconds ?? 0)))")
        lines.append("request:          \(report.requestID ?? "")")
        lines.append("documents:        \(count)")
        if !report.documents.isEmpty {
            let rows = [["#", "id", "score", "title"]] + report.documents.enumerated().map { index, document in
                [String(index + 1), document.id, String(format: "%.4f", document.score), document.title ?? ""]
            }
            lines.append(OpsTable.render(rows, leftAligned: [1, 3]))
        }
        return lines.joined(separator: "\n")
    }
}

/// `braid ops snapshot purge RANKING QUERY --yes`.
struct OpsSnapshotPurgeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "purge", abstract: "Delete every key of a ranking and query: pointer, all versions, refresh marker.",
        discussion: """
            Requires --yes. The next request for the query misses the cache (the gateway falls back to \
            live results and asks for a new snapshot). Prints every key it deleted.
            """)

    @OptionGroup var config: ConfigurationOption
    @Argument(help: "Secondary ranking, e.g. featured.") var ranking: String
    @Argument(help: "Query (normalised as the gateway and workers do).") var query: String
    @Flag(help: "Really delete (required).") var yes = false

    func validate() throws {
        guard yes else { throw ValidationError("snapshot purge deletes data: add --yes to confirm") }
    }

    func run() async throws {
        let configuration = try config.loadForService()
        let keys = configuration.redis.cacheKeys.ranking(ranking, query: query)
        let deleted = try await withOpsRedis(configuration) { redis in
            let candidates = [keys.pointer] + (try await redis.scanKeys(prefix: keys.versionPrefix)) + [keys.refreshMarker]
            var deleted: [String] = []
            for key in candidates where try await redis.del([key]) > 0 { deleted.append(key) }
            return deleted
        }
        print("ranking \(ranking), query \(query) (normalised: \(QueryNormalizer.normalize(query)))")
        for key in deleted { print("deleted \(key)") }
        print("deleted \(deleted.count) key\(deleted.count == 1 ? "" : "s")")
    }
}
