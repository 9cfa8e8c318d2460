import AsyncHTTPClient
import BraidConfig
import BraidSources
import Logging
import NIOCore
import BraidCore

/// Builds the live source that `search.source` names.
public enum SearchSourceFactory {
    public static func make(
        _ section: BraidConfiguration.SearchSection, client: HTTPClient = .shared,
        logger: Logger = Logger(label: "braid.search")
    ) -> any SearchSource {
        let timeout = TimeAmount.milliseconds(Int64(max(section.timeoutMs, 1)))
        switch section.source {
        case .sqlite:
            return SQLiteSearchSource(
                path: section.sqlitePath, options: SQLiteSearchSource.Options(connections: section.sqliteConnections), logger: logger)
        case .elasticsearch:
            return ElasticsearchSource(
                baseURL: section.elasticsearchUrl, index: section.elasticsearchIndex, credentials: section.elasticsearchCredentials,
                timeout: timeout, client: client)
        case .http:
            return HTTPRankingSource(url: section.httpUrl, timeout: timeout, client: client)
        }
    }
}

extension BraidConfiguration {
    /// Where feed components' contents come from, for the gateway (live reads) and the worker
    /// (materializing) alike: the recipes and users of the corpus at `search.sqlite_path`, and
    /// banners from `campaigns`. The one place that decides it.
    public func componentCorpus() -> SQLiteComponentProvider {
        SQLiteComponentProvider(path: search.sqlitePath)
    }
}

extension BraidConfiguration.SearchSection {
    /// What `search.elasticsearch_api_key` or `search.elasticsearch_username`/`_password` set.
    public var elasticsearchCredentials: ElasticsearchCredentials? {
        if !elasticsearchApiKey.isEmpty { return .apiKey(elasticsearchApiKey) }
        if !elasticsearchUsername.isEmpty { return .basic(username: elasticsearchUsername, password: elasticsearchPassword) }
        return nil
    }
}
