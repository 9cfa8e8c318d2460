import AsyncHTTPClient
import BraidRuntime
import Logging
import NIOCore

/// Builds the live source that `search.source` names.
public enum SearchSourceFactory {
    public static func make(
        _ section: BraidConfiguration.SearchSection, client: HTTPClient = .shared,
        logger: Logger = Logger(label: "braid.search")
    ) throws -> any SearchSource {
        let timeout = TimeAmount.milliseconds(Int64(max(section.timeoutMs, 1)))
        switch section.source {
        case "sqlite":
            return SQLiteSearchSource(path: section.sqlitePath, logger: logger)
        case "elasticsearch":
            return ElasticsearchSource(
                baseURL: section.elasticsearchUrl, index: section.elasticsearchIndex, timeout: timeout, client: client)
        case "http":
            return HTTPRankingSource(url: section.httpUrl, timeout: timeout, client: client)
        default:
            throw SearchSourceError(
                .unavailable, "unknown search.source \"\(section.source)\" (sqlite, elasticsearch or http; elasticsearch also speaks to OpenSearch)")
        }
    }
}
